/** @module Types of smtp-server.mjs (the local SMTP endpoint) for the TypeScript tests that import it. */
export const MAX_MESSAGE_BYTES: number;
export function startSmtpServer(o: { apiBase: string; adminToken: string; port: number; host?: string; log?: (line: string) => void }): Promise<{
  port: number;
  host: string;
  close: () => Promise<void>;
}>;
