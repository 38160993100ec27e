import { expect, it } from "vitest";
import { workerUrl } from "./helpers";
it("serves static", async () => {
  const res = await fetch(`${workerUrl()}/static/app.css`);
  console.log(res.status, [...res.headers]);
  expect(await res.text()).toContain("body");
});
