/** @module Response builders and request readers shared by every route. */
import type { z } from "zod";
import { ApiError, JSON_TYPE, badRequest } from "./errors";
import { readTextCapped } from "./stream";

export function json(data: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return jsonText(JSON.stringify(data), status, headers);
}

/** A body already written as JSON text (or, as recorded from the real service, text labelled JSON). */
export function jsonText(text: string, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(text, { status, headers: { "content-type": JSON_TYPE, ...headers } });
}

/** A 204 has no body and no JSON content type: several clients parse any JSON-typed answer and fail on an empty body. */
export const noContent = (headers: Record<string, string> = {}) => new Response(null, { status: 204, headers });

export function html(body: string, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(body, { status, headers: { "content-type": "text/html;charset=utf-8", ...headers } });
}

export const DEFAULT_MAX_BODY = 1024 * 1024;

/**
 * Reads the raw body, refusing anything over `max` bytes before and while reading it (413). A body whose
 * length is declared (and within `max`) is read whole by the runtime, which is several times cheaper than
 * reading it chunk by chunk here: HTTP framing holds a received body to its Content-Length, and the length
 * is checked again once read. Without a declared length (chunked), it is read chunk by chunk and cut off
 * as soon as it passes `max`.
 */
export async function readBody(request: Request, max: number): Promise<string> {
  const length = request.headers.get("content-length");
  const declared = Number(length ?? "0");
  if (declared > max) throw tooLarge(max);
  if (length !== null && Number.isSafeInteger(declared) && declared >= 0 && request.body) {
    const bytes = await request.arrayBuffer();
    if (bytes.byteLength > max) throw tooLarge(max);
    return decoder.decode(bytes);
  }
  const text = await readTextCapped(request.body, max);
  if (text === null) throw tooLarge(max);
  return text;
}

const decoder = new TextDecoder();

const tooLarge = (max: number) =>
  new ApiError("PAYLOAD_TOO_LARGE", `Request body exceeds the limit of ${max} bytes`);

export function parseJsonText(text: string): unknown {
  if (text.trim() === "") throw badRequest("A request body is required");
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest("Request body is not valid JSON");
  }
}

/** Query string as an object; a key given several times becomes an array. */
export function queryObject(url: URL): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of url.searchParams) {
    const prev = out[k];
    if (prev === undefined) out[k] = v;
    else out[k] = Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}

/**
 * zod's verdict on `input`, or null where zod throws instead of reporting: on JSON it cannot walk, such as a
 * record whose object has a key "constructor" holding null (its plain-object check reads
 * `value.constructor.prototype`). Such input is still the caller's: it gets the 400, never a 500.
 */
function parsed<T extends z.ZodType>(schema: T, input: unknown) {
  try {
    return schema.safeParse(input);
  } catch {
    return null;
  }
}

/** Validates `input` against `schema`, turning zod issues into one VALIDATION_ERROR naming each field. */
export function validate<T extends z.ZodType>(schema: T, input: unknown, where: string): z.output<T> {
  const result = parsed(schema, input);
  if (result === null) {
    const message = `Invalid ${where}: it could not be validated (an object with a key such as "constructor" that is not a property name)`;
    throw badRequest(message, { errors: [{ message, code: "INVALID_FORMAT", in: where, context: { propertyName: [where] } }] });
  }
  if (result.success) return result.data;
  const errors = result.error.issues.slice(0, 20).map((issue) => {
    const path = issue.path.map(String).join(".");
    return {
      message: path ? `${path}: ${issue.message}` : issue.message,
      code: issue.code.toUpperCase(),
      in: where,
      context: { propertyName: [path || where] },
    };
  });
  const first = errors[0]?.message ?? "invalid input";
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : "";
  throw badRequest(`Invalid ${where}: ${first}${more}`, { errors });
}
