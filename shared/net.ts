// Network helpers: loopback ports for the all-in-one runner, tests and benchmarks; what a URL carries.
import { connect, createServer } from "node:net";

/** A TCP port that was free on `host` (default 127.0.0.1) a moment ago. */
export function freePort(host = "127.0.0.1"): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, host, () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Whether something accepts TCP connections on 127.0.0.1:port. */
export function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host: "127.0.0.1", port });
    s.once("connect", () => {
      s.destroy();
      resolve(true);
    });
    s.once("error", () => resolve(false));
  });
}

/** Whether a URL carries credentials (user:password@): refused wherever a URL is configured or stored. */
export function hasCredentials(url: URL): boolean {
  return url.username !== "" || url.password !== "";
}
