// What a service's log says when it stops: "shutting down" once, however many signals arrive (Ctrl-C reaches a
// service under `inquest up` as SIGINT from the terminal and SIGTERM from up), and "stopped" as its last word, so an
// operator reading the log knows the stop finished rather than hung.
import { test } from "tap";
import { startNats } from "../helpers/nats.js";
import { startService, tempDir } from "../helpers/services.js";

test("a service stopped by SIGINT then SIGTERM says shutting down once, then stopped", async (t) => {
  const nats = await startNats();
  const dir = tempDir("inquest-stop-log-");
  t.teardown(async () => {
    await nats.stop();
    dir.remove();
  });
  const ticker = startService("ticker", { NATS_URL: nats.url, INQUEST_DATA_DIR: dir.path, LOG_LEVEL: "info" });
  await ticker.ready();
  const exited = ticker.kill("SIGINT");
  ticker.proc.kill("SIGTERM");
  t.equal(await exited, 0, "exits 0");
  const messages = ticker.output().split("\n").flatMap((l) => {
    try {
      return [(JSON.parse(l) as { msg?: string }).msg ?? ""];
    } catch {
      return [];
    }
  });
  t.equal(messages.filter((m) => m === "shutting down").length, 1, "one stop for the two signals");
  t.equal(messages.filter((m) => m !== "").at(-1), "stopped", "its last line", { messages: messages.filter((m) => m !== "").slice(-6) });
});
