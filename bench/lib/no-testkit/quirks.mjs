// Figure 15's baseline bundle (bench/lib/build.mjs): the search routes' import of the test kit, as nothing
// (no search lag); the operator's quirks routes keep the real module's handlers.
export { getQuirks, patchQuirks } from "../../../src/services/testkit/quirks.ts";
export const searchIndexedUntil = () => undefined;
