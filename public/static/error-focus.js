// @ts-check
/**
 * @module The record forms: a form shown again with errors moves focus to its error summary, so keyboard
 * and screen reader users hear what to fix first; each entry links to its field.
 */

const summary = document.querySelector(".error-summary");
if (summary instanceof HTMLElement) summary.focus();
