import { test } from "tap";
import { getProvider, isProviderName, lookupProvider, PROVIDER_NAMES, triggerSource } from "../../shared/inbound/providers/registry.js";

test("every provider is registered under its own name", async (t) => {
  t.same([...PROVIDER_NAMES].sort(), ["ci", "edr", "generic"]);
  for (const name of PROVIDER_NAMES) {
    t.equal(getProvider(name).name, name);
    t.equal(lookupProvider(name), getProvider(name));
    t.ok(isProviderName(name));
    t.equal(triggerSource(name), `inbound:${name}`);
  }
});

test("unknown names (the receiver's 404) are not providers", async (t) => {
  for (const name of ["", "github", "GENERIC", "constructor", "__proto__", "toString", "hasOwnProperty"]) {
    t.equal(lookupProvider(name), null, JSON.stringify(name));
    t.notOk(isProviderName(name));
  }
});
