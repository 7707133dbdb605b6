{{/* Name of a component's objects: <namePrefix>-<component>. */}}
{{- define "swh.name" -}}
{{- printf "%s-%s" .root.Values.namePrefix .component | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Labels every object carries. */}}
{{- define "swh.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: service-with-healthchecks
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* Labels of a component's objects (call with dict "root" $ "component" "controller"). */}}
{{- define "swh.componentLabels" -}}
{{ include "swh.labels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* Selector labels of a component's pods: stable across upgrades. */}}
{{- define "swh.selectorLabels" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* Label whose value Prometheus uses as the job name (ServiceMonitor/PodMonitor jobLabel). */}}
{{- define "swh.jobLabelKey" -}}
service-with-healthchecks.network.deckhouse.io/metrics-job
{{- end -}}

{{/* Image of an app (call with dict "root" $ "component" "controller"). */}}
{{- define "swh.image" -}}
{{- printf "%s/swh-%s:%s" .root.Values.image.repositoryPrefix .component (.root.Values.image.tag | default .root.Chart.AppVersion) -}}
{{- end -}}

{{/* Restricted container security context (Pod Security Standard "restricted"). */}}
{{- define "swh.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
runAsNonRoot: true
runAsUser: 65534
runAsGroup: 65534
capabilities:
  drop: ["ALL"]
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/* Restricted pod security context. */}}
{{- define "swh.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 65534
runAsGroup: 65534
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/* App address of the metrics endpoint: loopback only when kube-rbac-proxy fronts it. */}}
{{- define "swh.metricsBindAddress" -}}
{{- if .Values.metrics.kubeRbacProxy.enabled -}}
{{ printf "127.0.0.1:%d" (int .Values.ports.metrics) }}
{{- else -}}
{{ printf ":%d" (int .Values.ports.metrics) }}
{{- end -}}
{{- end -}}

{{/* kube-rbac-proxy sidecar (call with dict "root" $ "component" "controller"). */}}
{{- define "swh.kubeRbacProxy" -}}
{{- $p := .root.Values.metrics.kubeRbacProxy -}}
- name: kube-rbac-proxy
  image: {{ $p.image }}
  imagePullPolicy: {{ $p.pullPolicy }}
  args:
    - --secure-listen-address=0.0.0.0:{{ $p.port }}
    - --upstream=http://127.0.0.1:{{ .root.Values.ports.metrics }}/
    - --allow-paths=/metrics
    - --config-file=/etc/kube-rbac-proxy/config.yaml
  ports:
    - name: https-metrics
      containerPort: {{ $p.port }}
      protocol: TCP
  volumeMounts:
    - name: kube-rbac-proxy-config
      mountPath: /etc/kube-rbac-proxy
      readOnly: true
  resources:
    {{- toYaml $p.resources | nindent 4 }}
  securityContext:
    {{- include "swh.containerSecurityContext" .root | nindent 4 }}
{{- end -}}

{{/* Scraper credentials for ServiceMonitor/PodMonitor endpoints behind kube-rbac-proxy. */}}
{{- define "swh.scrapeAuth" -}}
authorization:
  type: Bearer
  credentials:
    name: {{ include "swh.name" (dict "root" . "component" "metrics-scraper") }}
    key: token
# kube-rbac-proxy serves a self-signed certificate unless one is configured.
tlsConfig:
  insecureSkipVerify: true
{{- end -}}
