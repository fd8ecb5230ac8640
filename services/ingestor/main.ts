// ingestor wiring. This service's capability is not built yet: it connects, provisions, and idles until stopped.
import { commonEnv, loadConfig } from "../../shared/config.js";
import { Lifecycle } from "../../shared/lifecycle.js";
import { connectNats } from "../../shared/nats/connect.js";
import { openRuntime } from "../../shared/runtime.js";
import { runService } from "../../shared/service.js";

await runService("ingestor", process.env.LOG_LEVEL, async (log, register) => {
  const config = loadConfig(commonEnv, process.env);
  const nc = await connectNats({ servers: config.NATS_URL, name: "inquest-ingestor", log });
  const life = new Lifecycle({ log, nc });
  register(life);
  await openRuntime(nc);
  log.info("ingestor ready");
});
