/**
 * Reading a dashboard form (`application/x-www-form-urlencoded`, what a browser posts) strictly: another content
 * type is 415, a body past 16 KiB is 413 (no form of ours comes near), bytes that are not UTF-8 (raw or
 * percent-encoded) are 400, and a field given twice is 400 unless the form lists it as multi-valued (check
 * boxes). Every refusal is a `BadForm` the failure mapper shows as a page, never a 500.
 */
import { Data, Effect } from "effect";
import { readBodyBytes } from "@src/http/request_body.ts";

export class BadForm extends Data.TaggedError("BadForm")<{
  readonly status: 400 | 413 | 415;
  readonly message: string;
}> {}

export const formLimitBytes = 16 * 1024;

export interface Form {
  /** The one value of a single-valued field; undefined when absent. */
  readonly get: (name: string) => string | undefined;
  /** Every value of a multi-valued field (check boxes), in order. */
  readonly all: (name: string) => ReadonlyArray<string>;
}

const bad = (message: string) => new BadForm({ status: 400, message });

const readBytes = async (request: Request, limit: number): Promise<Uint8Array | BadForm> => {
  const body = await readBodyBytes(request, limit);
  switch (body._tag) {
    case "Bytes":
      return body.bytes;
    case "TooLarge":
      return new BadForm({ status: 413, message: `The form is larger than ${limit} bytes.` });
    case "Broken":
      return bad("The form arrived incomplete.");
  }
};

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** Parses `a=1&b=2`; undefined on an escape that is not UTF-8. */
const parse = (text: string): Map<string, Array<string>> | undefined => {
  const fields = new Map<string, Array<string>>();
  for (const pair of text.split("&")) {
    if (pair === "") continue;
    const eq = pair.indexOf("=");
    const [k, v] = eq < 0 ? [pair, ""] : [pair.slice(0, eq), pair.slice(eq + 1)];
    let name: string, value: string;
    try {
      name = decodeURIComponent(k.replace(/\+/g, " "));
      value = decodeURIComponent(v.replace(/\+/g, " "));
    } catch {
      return undefined;
    }
    const list = fields.get(name);
    if (list) list.push(value);
    else fields.set(name, [value]);
  }
  return fields;
};

/** The posted form, or why it is refused; `multi` names the fields that may repeat. */
export const readForm = (
  request: Request,
  multi: ReadonlyArray<string> = [],
  limit = formLimitBytes,
): Effect.Effect<Form, BadForm> =>
  Effect.suspend(() => {
    const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    return type === "application/x-www-form-urlencoded"
      ? Effect.promise(() => readBytes(request, limit))
      : Effect.fail(
        new BadForm({
          status: 415,
          message:
            "This address takes a form (application/x-www-form-urlencoded), as the page's form sends it.",
        }),
      );
  }).pipe(Effect.flatMap((bytes) => {
    if (bytes instanceof BadForm) return Effect.fail(bytes);
    let text: string;
    try {
      text = strictUtf8.decode(bytes);
    } catch {
      return Effect.fail(bad("The form is not valid UTF-8 text."));
    }
    const fields = parse(text);
    if (!fields) return Effect.fail(bad("The form is not valid UTF-8 text."));
    for (const [name, values] of fields) {
      if (values.length > 1 && !multi.includes(name)) {
        return Effect.fail(bad(`The form gives the field "${name.slice(0, 40)}" more than once.`));
      }
    }
    if (fields.size > 64) return Effect.fail(bad("The form has too many fields."));
    return Effect.succeed<Form>({
      get: (name) => fields.get(name)?.[0],
      all: (name) => fields.get(name) ?? [],
    });
  }));
