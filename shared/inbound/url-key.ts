// Authenticating a receiver URL key: parse the prefix, read the endpoint it names, compare the SHA-256 of the
// presented key with the stored hash in constant time. An unknown prefix is compared against a dummy hash so
// the answer takes the same path either way.
import { digestEqual, hashToken, splitInboundKey } from "../secrets.js";
import type { InboundEndpointRecord } from "./endpoint.js";

const NO_SUCH_KEY_HASH = hashToken("whk_00000000_no-endpoint-has-this-key-000000000");

export async function authenticateUrlKey(
  key: string,
  byPrefix: (prefix: string) => Promise<InboundEndpointRecord | null>,
): Promise<InboundEndpointRecord | null> {
  const split = splitInboundKey(key);
  if (!split.ok) return null;
  const record = await byPrefix(split.prefix);
  const matches = digestEqual(hashToken(key), record?.url_key_hash ?? NO_SUCH_KEY_HASH);
  return record !== null && matches ? record : null;
}
