// The message a run handed back too often fails with (services/runner/give-up.ts): a run handed back by rolling
// restarts (SIGTERM) was said to have "stopped on an error 20 times", sending people to look for errors that never were.
import { test } from "tap";
import { handedBackMessage } from "../../services/runner/give-up.js";

test("only errors: the count of errors, as before", async (t) => {
  const message = handedBackMessage({ run_attempts: 20, handed_back: 20 }, 20);
  t.match(message, /stopped on an error 20 times/);
  t.notMatch(message, /shut/);
});

test("shutdowns among them: says how many were runners shutting down and how many errors", async (t) => {
  const message = handedBackMessage({ run_attempts: 21, handed_back: 20, shutdowns: 17 }, 20);
  t.notMatch(message, /stopped on an error 20 times/, message);
  t.match(message, /handed back 20 times/, message);
  t.match(message, /17 by a runner shutting down/, message);
  t.match(message, /3 on an error/, message);
  t.match(message, /21 attempts/, message);
});

test("only shutdowns: no errors claimed", async (t) => {
  const message = handedBackMessage({ run_attempts: 20, handed_back: 20, shutdowns: 20 }, 20);
  t.match(message, /20 by a runner shutting down/, message);
  t.match(message, /0 on an error|no error/, message);
});
