/** How the explorer shows a native asset's name (spec: Token.assetName next to assetNameHex). */
import { hex } from "@scure/base";

/** UTF-8 text of an asset name when it is valid UTF-8 without control characters, else its hex. */
export const assetNameText = (nameHex: string): string => {
  try {
    const text = new TextDecoder("utf-8", { fatal: true }).decode(hex.decode(nameHex));
    // deno-lint-ignore no-control-regex
    return /[\u0000-\u001f\u007f]/.test(text) ? nameHex : text;
  } catch {
    return nameHex;
  }
};
