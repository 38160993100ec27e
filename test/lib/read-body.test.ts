/** readBody: the 413 cap holds whether the body's length is declared (read whole) or not (read chunk by chunk). */
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/lib/errors";
import { readBody } from "../../src/lib/http";

const post = (body: BodyInit, headers: Record<string, string> = {}) => new Request("https://crm.test/x", { method: "POST", body, headers });
const chunked = (parts: string[]) =>
  new ReadableStream<Uint8Array>({
    start(c) {
      for (const p of parts) c.enqueue(new TextEncoder().encode(p));
      c.close();
    },
  });
const refused = async (p: Promise<unknown>) => {
  const err = await p.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(ApiError);
  expect((err as ApiError).status).toBe(413);
};

describe("readBody", () => {
  it("reads a body with a declared length, and one without (streamed), as the same text", async () => {
    const text = `{"name":"Zoë ✓","n":[1,2,3]}`;
    const bytes = new TextEncoder().encode(text).byteLength;
    expect(await readBody(post(text, { "content-length": String(bytes) }), 1000)).toBe(text);
    expect(await readBody(post(chunked([text.slice(0, 5), text.slice(5)])), 1000)).toBe(text);
    expect(await readBody(new Request("https://crm.test/x"), 1000)).toBe("");
  });

  it("refuses a declared length over the cap before reading, and a body over the cap whichever way it is read", async () => {
    await refused(readBody(post("x".repeat(20), { "content-length": "2000" }), 1000));
    await refused(readBody(post("x".repeat(2000)), 1000));
    await refused(readBody(post(chunked(["x".repeat(600), "x".repeat(600)])), 1000));
    // A declared length that understates the body (only a Request made in the Worker can): still refused.
    await refused(readBody(post("x".repeat(2000), { "content-length": "10" }), 1000));
  });
});
