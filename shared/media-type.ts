// The media type a request says its body is: Content-Type without its parameters, lower-cased ("" when absent).

export function mediaTypeOf(headers: Readonly<Record<string, string | undefined>>): string {
  return (headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}
