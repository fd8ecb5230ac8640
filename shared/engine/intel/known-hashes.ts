// sha256 values known to be bad, with what they are and where that is known from. This engine ships no malware
// feed: the list holds the EICAR test file (a real, published hash) and the demo fleet's planted sample, clearly
// labelled. Indicators from an incident belong in the question ("is <sha256> anywhere?"), where ioc-match finds
// them; a feed would be loaded here.

export interface KnownHash {
  name: string;
  source: string;
}

export const KNOWN_BAD_SHA256: Readonly<Record<string, KnownHash>> = {
  "275a021bbfb6489e54d471899f7db9d1663fc695ec2fe2a2c4538aabf651fd0f": { name: "EICAR antivirus test file", source: "EICAR standard anti-malware test file (eicar.org)" },
  "4f1e2a3b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f5a6b": { name: "the demo fleet's planted miner (examples/fleet.json, web-02)", source: "demo data of this repository, not real intelligence" },
};
