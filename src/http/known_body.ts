/**
 * The text of answers built from a string (JSON answers, pages): the edge measures and compresses it from here
 * instead of reading the body back and building a copy of the answer (`compression.ts`), which cost every
 * compressible answer a read and a second Response, even the small ones that go out as they are.
 */
const texts = new WeakMap<Response, string>();

/** A response whose body is `text`, unread. */
export const withKnownBody = (response: Response, text: string): Response => {
  texts.set(response, text);
  return response;
};

/** The body's text when the response was built from one and nothing has read it since; undefined otherwise. */
export const knownBody = (response: Response): string | undefined =>
  response.bodyUsed ? undefined : texts.get(response);
