import js from "@eslint/js";
import tseslint from "typescript-eslint";
import layers from "./scripts/lint/layers.mjs";

export default tseslint.config(
  { ignores: ["node_modules/", "dist/", ".wrangler/", "worker-configuration.d.ts", "migrations/", "bench/results.json", "bench/results-soak.json", "bench/.build/", "test-results/", "public/vendor/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { console: "readonly", crypto: "readonly", fetch: "readonly", URL: "readonly", Response: "readonly", Request: "readonly", Headers: "readonly", process: "readonly", setTimeout: "readonly", clearTimeout: "readonly", TextEncoder: "readonly", TextDecoder: "readonly", AbortSignal: "readonly", AbortController: "readonly", btoa: "readonly", atob: "readonly", URLSearchParams: "readonly", document: "readonly", window: "readonly" },
    },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
    },
  },
  {
    // Browser modules of the web app (type-checked through JSDoc by tsconfig.client.json).
    files: ["public/static/**/*.js"],
    languageOptions: {
      sourceType: "module",
      globals: {
        document: "readonly", window: "readonly", fetch: "readonly", URL: "readonly", Intl: "readonly", Node: "readonly",
        HTMLElement: "readonly", HTMLButtonElement: "readonly", HTMLMetaElement: "readonly", HTMLDialogElement: "readonly",
        HTMLIFrameElement: "readonly", HTMLFormElement: "readonly", HTMLDetailsElement: "readonly", Element: "readonly",
        FormData: "readonly", DOMParser: "readonly", location: "readonly",
      },
    },
  },
  // The layers of src/: imports go down only, and no file is part of an import circle (scripts/lint/layers.mjs).
  { files: ["src/**/*.ts"], plugins: { layers }, rules: { "layers/imports-go-down": "error", "layers/no-cycle": "error" } },
  // The benchmark runner is plain Node ESM (bench/README.md).
  { files: ["bench/**/*.mjs"], languageOptions: { globals: { performance: "readonly", Buffer: "readonly" } } },
);
