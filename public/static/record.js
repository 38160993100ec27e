// @ts-check
/**
 * @module The record page: starts every CRM card's load at once (cards.js) and opens timeline
 * iframes (spec 2.8 timelineIFrame) in the modal.
 */
import "./app.js";
import { initCard } from "./cards.js";
import { openIframe } from "./modal.js";

const record = /** @type {HTMLElement | null} */ (document.querySelector(".record[data-object-type]"));
if (record) {
  const type = record.dataset.objectType ?? "";
  const id = record.dataset.objectId ?? "";
  for (const section of record.querySelectorAll(".card[data-card-id]")) initCard(/** @type {HTMLElement} */ (section), type, id);
  for (const el of record.querySelectorAll("button[data-iframe-src]")) {
    const button = /** @type {HTMLButtonElement} */ (el);
    button.addEventListener("click", () => {
      const d = button.dataset;
      openIframe(
        { src: d.iframeSrc ?? "", width: Number(d.iframeWidth), height: Number(d.iframeHeight), title: d.iframeLabel ?? button.textContent ?? "" },
        button,
        null,
        () => {},
      );
    });
  }
}
