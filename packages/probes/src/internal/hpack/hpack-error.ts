/** A header block that cannot be decoded (an HTTP/2 COMPRESSION_ERROR): the connection cannot be used further. */
export class HpackError extends Error {
  override readonly name: string = "HpackError";
}

/** A header list over the decoder's bounds (fields or bytes): decoding stopped there. */
export class HeaderListTooLargeError extends HpackError {
  override readonly name = "HeaderListTooLargeError";
}
