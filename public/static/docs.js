// @ts-check
/**
 * @module Starts Swagger UI on GET /docs with the service's own /openapi.json. A separate file
 * because the page's policy allows no inline script. `validatorUrl: null` keeps Swagger UI from sending the
 * document to validator.swagger.io: the page makes no request that leaves this origin.
 */

/**
 * The global the vendored swagger-ui-bundle.js defines (only the part used here).
 * @typedef {{ (options: Record<string, unknown>): unknown, presets: { apis: unknown } }} SwaggerUIBundle
 */

const bundle = /** @type {{ SwaggerUIBundle?: SwaggerUIBundle }} */ (/** @type {unknown} */ (window)).SwaggerUIBundle;
const root = document.getElementById("swagger-ui");
if (!bundle) {
  if (root) root.textContent = "The API reference renderer did not load. The raw description is at /openapi.json.";
} else {
  bundle({
    url: "/openapi.json",
    dom_id: "#swagger-ui",
    presets: [bundle.presets.apis],
    deepLinking: true,
    validatorUrl: null,
    // Show each operation's parameters, bodies and responses without a click per tag.
    docExpansion: "list",
    defaultModelsExpandDepth: 0,
    tryItOutEnabled: false,
  });
}
