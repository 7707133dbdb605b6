/*
 * The benchmark's native floor (bench/peers.ts, checker `native-floor`): TCP connections on Node's own libuv loop,
 * opened and reset from JavaScript by slot number, with no `net.Socket`, no stream and no per-connection JS object.
 * It measures what a check costs when Node's socket layer is not in the way (ADR 0044); it is not used by the
 * probes.
 *
 * JavaScript API (all synchronous):
 *   init(onEvent)                  onEvent(slot, event, value): 1 connected (value 0), 2 data (value a Buffer
 *                                  copy of the chunk), 3 end of stream (0), 4 error (value a negative libuv code)
 *   open(slot, ip, port, request?) 0, or a negative libuv code; `request` (a Buffer) is written once connected
 *                                  and the answer read from then on
 *   close(slot)                    a connected socket is reset (SO_LINGER 0, as the probes close), any other closed
 */
#include <node_api.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

enum { EV_CONNECTED = 1, EV_DATA = 2, EV_END = 3, EV_ERROR = 4 };
#define READ_BYTES 16384
#define MAX_SLOTS (1u << 20)

struct instance;

typedef struct connection {
  uv_tcp_t tcp;
  uv_connect_t connect;
  uv_write_t write;
  struct instance* owner;
  uint32_t slot;
  int connected;
  char* request;
  size_t request_len;
  char read[READ_BYTES];
} connection_t;

typedef struct instance {
  napi_env env;
  uv_loop_t* loop;
  napi_ref on_event;
  napi_ref receiver;
  napi_async_context context;
  connection_t** slots;
  uint32_t capacity;
} instance_t;

static void emit(connection_t* c, int event, const char* data, size_t len, int code) {
  instance_t* in = c->owner;
  napi_env env = in->env;
  napi_handle_scope scope;
  napi_value fn, receiver, argv[3], result;
  if (in->on_event == NULL || napi_open_handle_scope(env, &scope) != napi_ok) return;
  napi_get_reference_value(env, in->on_event, &fn);
  napi_get_reference_value(env, in->receiver, &receiver);
  napi_create_uint32(env, c->slot, &argv[0]);
  napi_create_int32(env, event, &argv[1]);
  if (event == EV_DATA) {
    void* copy;
    napi_create_buffer_copy(env, len, data, &copy, &argv[2]);
  } else {
    napi_create_int32(env, code, &argv[2]);
  }
  // make_callback, not call_function: the microtasks a callback queues (promise reactions) run after it.
  napi_make_callback(env, in->context, receiver, fn, 3, argv, &result);
  napi_close_handle_scope(env, scope);
}

static void on_closed(uv_handle_t* handle) {
  connection_t* c = handle->data;
  free(c->request);
  free(c);
}

static void on_alloc(uv_handle_t* handle, size_t suggested, uv_buf_t* buf) {
  connection_t* c = handle->data;
  (void)suggested;
  *buf = uv_buf_init(c->read, READ_BYTES);
}

static void on_read(uv_stream_t* stream, ssize_t n, const uv_buf_t* buf) {
  connection_t* c = stream->data;
  if (n > 0) {
    emit(c, EV_DATA, buf->base, (size_t)n, 0);
  } else if (n < 0) {
    uv_read_stop(stream);
    emit(c, n == UV_EOF ? EV_END : EV_ERROR, NULL, 0, n == UV_EOF ? 0 : (int)n);
  }
}

static void on_written(uv_write_t* req, int status) {
  connection_t* c = req->handle->data;
  free(c->request);
  c->request = NULL;
  if (status < 0 && status != UV_ECANCELED) emit(c, EV_ERROR, NULL, 0, status);
}

static void on_connect(uv_connect_t* req, int status) {
  connection_t* c = req->handle->data;
  if (status == UV_ECANCELED) return;  // closed before it connected
  if (status < 0) {
    emit(c, EV_ERROR, NULL, 0, status);
    return;
  }
  c->connected = 1;
  if (c->request != NULL) {
    uv_buf_t buf = uv_buf_init(c->request, (unsigned)c->request_len);
    int err = uv_write(&c->write, (uv_stream_t*)&c->tcp, &buf, 1, on_written);
    if (err == 0) err = uv_read_start((uv_stream_t*)&c->tcp, on_alloc, on_read);
    if (err != 0) {
      emit(c, EV_ERROR, NULL, 0, err);
      return;
    }
  }
  emit(c, EV_CONNECTED, NULL, 0, 0);
}

static instance_t* instance_of(napi_env env) {
  void* data = NULL;
  napi_get_instance_data(env, &data);
  return data;
}

static napi_value int_value(napi_env env, int value) {
  napi_value v;
  napi_create_int32(env, value, &v);
  return v;
}

static int reserve(instance_t* in, uint32_t slot) {
  if (slot < in->capacity) return 0;
  if (slot >= MAX_SLOTS) return UV_EINVAL;
  uint32_t capacity = in->capacity ? in->capacity : 1024;
  while (capacity <= slot) capacity *= 2;
  connection_t** slots = realloc(in->slots, capacity * sizeof *slots);
  if (slots == NULL) return UV_ENOMEM;
  memset(slots + in->capacity, 0, (capacity - in->capacity) * sizeof *slots);
  in->slots = slots;
  in->capacity = capacity;
  return 0;
}

static int parse_address(const char* ip, uint32_t port, struct sockaddr_storage* addr) {
  if (port == 0 || port > 65535) return UV_EINVAL;
  if (strchr(ip, ':') != NULL) return uv_ip6_addr(ip, (int)port, (struct sockaddr_in6*)addr);
  return uv_ip4_addr(ip, (int)port, (struct sockaddr_in*)addr);
}

static napi_value js_open(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  instance_t* in = instance_of(env);
  uint32_t slot = 0, port = 0;
  char ip[64] = "";
  size_t ip_len = 0;
  if (argc < 3 || napi_get_value_uint32(env, argv[0], &slot) != napi_ok ||
      napi_get_value_string_latin1(env, argv[1], ip, sizeof ip, &ip_len) != napi_ok ||
      napi_get_value_uint32(env, argv[2], &port) != napi_ok)
    return int_value(env, UV_EINVAL);
  struct sockaddr_storage addr;
  int err = reserve(in, slot);
  if (err == 0 && in->slots[slot] != NULL) err = UV_EBUSY;
  if (err == 0) err = parse_address(ip, port, &addr);
  if (err != 0) return int_value(env, err);
  connection_t* c = calloc(1, sizeof *c);
  if (c == NULL) return int_value(env, UV_ENOMEM);
  c->owner = in;
  c->slot = slot;
  bool is_buffer = false;
  if (argc > 3) napi_is_buffer(env, argv[3], &is_buffer);
  if (is_buffer) {
    void* data;
    napi_get_buffer_info(env, argv[3], &data, &c->request_len);
    c->request = malloc(c->request_len ? c->request_len : 1);
    if (c->request == NULL) {
      free(c);
      return int_value(env, UV_ENOMEM);
    }
    memcpy(c->request, data, c->request_len);
  }
  err = uv_tcp_init(in->loop, &c->tcp);
  if (err != 0) {
    free(c->request);
    free(c);
    return int_value(env, err);
  }
  c->tcp.data = c;
  err = uv_tcp_connect(&c->connect, &c->tcp, (const struct sockaddr*)&addr, on_connect);
  if (err != 0) {
    uv_close((uv_handle_t*)&c->tcp, on_closed);
    return int_value(env, err);
  }
  in->slots[slot] = c;
  return int_value(env, 0);
}

static napi_value js_close(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  uint32_t slot = 0;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  instance_t* in = instance_of(env);
  if (argc < 1 || napi_get_value_uint32(env, argv[0], &slot) != napi_ok || slot >= in->capacity) return NULL;
  connection_t* c = in->slots[slot];
  if (c == NULL) return NULL;
  in->slots[slot] = NULL;
  if (!c->connected || uv_tcp_close_reset(&c->tcp, on_closed) != 0) uv_close((uv_handle_t*)&c->tcp, on_closed);
  return NULL;
}

static napi_value js_init(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], receiver, name;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  instance_t* in = instance_of(env);
  napi_valuetype type = napi_undefined;
  if (argc > 0) napi_typeof(env, argv[0], &type);
  if (type != napi_function || in->on_event != NULL) {
    napi_throw_type_error(env, NULL, "init(onEvent) takes one function, once");
    return NULL;
  }
  napi_create_reference(env, argv[0], 1, &in->on_event);
  napi_create_object(env, &receiver);
  napi_create_reference(env, receiver, 1, &in->receiver);
  napi_create_string_utf8(env, "swh-native-floor", NAPI_AUTO_LENGTH, &name);
  napi_async_init(env, receiver, name, &in->context);
  return NULL;
}

static void finalize(napi_env env, void* data, void* hint) {
  instance_t* in = data;
  (void)env;
  (void)hint;
  free(in->slots);
  free(in);
}

NAPI_MODULE_INIT() {
  instance_t* in = calloc(1, sizeof *in);
  if (in == NULL) return NULL;
  in->env = env;
  napi_get_uv_event_loop(env, &in->loop);
  napi_set_instance_data(env, in, finalize, NULL);
  const napi_property_descriptor api[] = {
      {"init", NULL, js_init, NULL, NULL, NULL, napi_default, NULL},
      {"open", NULL, js_open, NULL, NULL, NULL, napi_default, NULL},
      {"close", NULL, js_close, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof api / sizeof api[0], api);
  return exports;
}
