// Libraries that administrators and vendors legitimately load system-wide through /etc/ld.so.preload. Used by
// ld-so-preload: when the library mapped into most processes is one of these, the hit becomes a note (kept_by = id).

export interface PreloadLibraryBaseline {
  id: string;
  /** Library file names (basename, version suffix allowed: "libjemalloc.so" also matches "libjemalloc.so.2"). */
  names: readonly string[];
  /** Directories the package installs it into (the mapped path must be directly inside one of them). */
  directories: readonly string[];
  source: string;
}

const MULTIARCH = ["/lib", "/lib64", "/usr/lib", "/usr/lib64", "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu"];

export const PRELOAD_LIBRARY_BASELINES: readonly PreloadLibraryBaseline[] = [
  {
    id: "preload-libraries:snoopy",
    names: ["libsnoopy.so"],
    directories: [...MULTIARCH, "/usr/local/lib"],
    source: "https://github.com/a2o/snoopy (snoopy-enable / the Debian and RPM packages add the library to /etc/ld.so.preload)",
  },
  {
    id: "preload-libraries:dynatrace-oneagent",
    names: ["liboneagentproc.so"],
    directories: [...MULTIARCH, "/opt/dynatrace/oneagent/agent/lib64", "/opt/dynatrace/oneagent/agent/lib"],
    source: "https://docs.dynatrace.com/docs/ingest-from/dynatrace-oneagent/installation-and-operation/linux (OneAgent writes /$LIB/liboneagentproc.so to /etc/ld.so.preload)",
  },
  {
    id: "preload-libraries:datadog-apm-inject",
    names: ["launcher.preload.so"],
    directories: ["/opt/datadog-packages/datadog-apm-inject/stable/inject", "/opt/datadog/apm/inject"],
    source: "https://docs.datadoghq.com/tracing/trace_collection/automatic_instrumentation/single-step-apm/ (Single Step Instrumentation on a Linux host writes /opt/datadog-packages/datadog-apm-inject/stable/inject/launcher.preload.so to /etc/ld.so.preload)",
  },
  {
    id: "preload-libraries:allocators",
    names: ["libjemalloc.so", "libtcmalloc.so", "libtcmalloc_minimal.so", "libmimalloc.so"],
    directories: MULTIARCH,
    source: "https://github.com/jemalloc/jemalloc/wiki/Getting-Started (LD_PRELOAD / ld.so.preload of the packaged allocator)",
  },
];

function dirname(path: string): string {
  const i = path.lastIndexOf("/");
  return i > 0 ? path.slice(0, i) : "/";
}

/** The baseline a mapped library path belongs to, if any. */
export function preloadBaseline(path: string): PreloadLibraryBaseline | undefined {
  const file = path.slice(path.lastIndexOf("/") + 1);
  const dir = dirname(path);
  return PRELOAD_LIBRARY_BASELINES.find(
    (b) => b.directories.includes(dir) && b.names.some((n) => file === n || file.startsWith(`${n}.`)),
  );
}
