/** A child's output stream line by line (without the newline): for logs and for waiting on a line. */
export const eachLine = async (stream: ReadableStream<Uint8Array>, onLine: (line: string) => void) => {
  let buffer = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      onLine(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
    }
  }
};
