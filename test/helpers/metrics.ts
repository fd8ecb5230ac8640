// Reading Prometheus text exposition (a service's /metrics) in tests.

/** The value of one sample line (`name{labels} value`, found by its start), or undefined. */
export function sample(text: string, prefix: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(prefix));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(" ") + 1));
}
