// The ceiling: a raw uWebSockets.js hello-world answering a small JSON body, nothing else.
// Run as its own process (`node dist/bench/hello-uws.js`) so it does not share an event loop with the load
// generator, exactly like the gateway. Prints `PORT=<n>` (and `UWS=native|fallback`) once listening;
// stops on SIGTERM/SIGINT, or (with --exit-with-parent) when its parent goes away.
import uWS from "uWebSockets.js";

const BODY = JSON.stringify({ hello: "world", ok: true });
const native = typeof (uWS as unknown as { getParts?: unknown }).getParts === "function";

const app = uWS.App();
app.any("/*", (res) => {
  res.cork(() => {
    res.writeStatus("200 OK");
    res.writeHeader("content-type", "application/json");
    res.end(BODY);
  });
});

app.listen("127.0.0.1", 0, (listenSocket) => {
  if (!listenSocket) {
    process.stderr.write("hello-uws: cannot listen on 127.0.0.1\n");
    process.exit(1);
  }
  const port = uWS.us_socket_local_port(listenSocket);
  process.stdout.write(`UWS=${native ? "native" : "fallback"}\nPORT=${port}\n`);
});

const stop = (): void => {
  (app as unknown as { close?: () => void }).close?.();
  process.exit(0);
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
// `--exit-with-parent`: the parent holds our stdin pipe; when it goes away (even killed), stdin ends and we stop.
if (process.argv.includes("--exit-with-parent")) {
  process.stdin.on("end", stop);
  process.stdin.on("error", stop);
  process.stdin.resume();
}
