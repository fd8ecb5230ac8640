// cli/api-types.ts is generated from openapi.json with openapi-typescript (docs/api.md#openapi): `make openapi`
// writes both, and a test fails when the committed copy drifts from what this renders.
import openapiTS, { astToString } from "openapi-typescript";

const HEADER = "// Generated from openapi.json by openapi-typescript (`make openapi`); do not edit. docs/api.md#openapi\n";

export async function renderApiTypes(doc: unknown): Promise<string> {
  const ast = await openapiTS(doc as Parameters<typeof openapiTS>[0]);
  return `${HEADER}${astToString(ast)}`;
}
