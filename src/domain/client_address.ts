/**
 * Client addresses as throttles and logs see them. Behind a reverse proxy the TCP peer is the proxy, so the
 * client is read from `X-Forwarded-For` or `Forwarded` (RFC 7239), but only when the peer is a proxy the operator
 * trusts (TRUSTED_PROXIES): the client is the rightmost address of the chain that is not itself a trusted proxy
 * (everything left of it was written by the client and may be forged). Anything else (an untrusted peer, a
 * malformed or over-long chain, both headers present and disagreeing) gives the peer's own address.
 *
 * Throttles count an IPv4 address as itself and an IPv6 address as its /64, since one host usually holds a
 * whole /64.
 */

/** An address as bytes: 4 for IPv4, 16 for IPv6. */
type Bytes = ReadonlyArray<number>;

/** An address or a network (`10.0.0.0/8`, `2001:db8::/32`); a single address has the full prefix length. */
export interface Cidr {
  readonly bytes: Bytes;
  readonly prefix: number;
}

const ipv4Pattern =
  /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

const parseIpv4 = (text: string): Bytes | undefined => {
  const m = ipv4Pattern.exec(text);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4])] : undefined;
};

const parseIpv6 = (text: string): Bytes | undefined => {
  if (text.length > 45 || !/^[0-9a-fA-F:.]+$/.test(text)) return undefined;
  let tail: Bytes = [];
  let body = text;
  const dot = text.indexOf(".");
  if (dot >= 0) {
    // an IPv4 tail (`::ffff:192.0.2.1`) stands for the last two groups
    const colon = text.lastIndexOf(":");
    const v4 = colon < 0 ? undefined : parseIpv4(text.slice(colon + 1));
    if (!v4) return undefined;
    tail = v4;
    body = text.slice(0, text[colon - 1] === ":" ? colon + 1 : colon);
  }
  const halves = body.split("::");
  if (halves.length > 2) return undefined;
  const groupsOf = (part: string) => part === "" ? [] : part.split(":");
  const left = groupsOf(halves[0]!);
  const right = halves.length === 2 ? groupsOf(halves[1]!) : [];
  if (![...left, ...right].every((g) => /^[0-9a-fA-F]{1,4}$/.test(g))) return undefined;
  const wanted = 8 - tail.length / 2;
  const given = left.length + right.length;
  if (halves.length === 1 ? given !== wanted : given >= wanted) return undefined;
  const groups = [...left, ...Array(wanted - given).fill("0"), ...right].map((g) => parseInt(g, 16));
  return [...groups.flatMap((g) => [g >> 8, g & 0xff]), ...tail];
};

/** An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`) is its IPv4 address. */
const unmapped = (bytes: Bytes): Bytes =>
  bytes.length === 16 && bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff
    ? bytes.slice(12)
    : bytes;

/** The bytes of an IPv4 or IPv6 address (no port, no brackets, no zone); undefined when it is not one. */
export const parseIp = (text: string): Bytes | undefined => {
  const bytes = text.includes(":") ? parseIpv6(text) : parseIpv4(text);
  return bytes && unmapped(bytes);
};

/** The canonical text of an address: dotted IPv4, or RFC 5952 IPv6 (lowercase, longest zero run as `::`). */
export const formatIp = (bytes: Bytes): string => {
  if (bytes.length === 4) return bytes.join(".");
  const groups = Array.from({ length: 8 }, (_, i) => (bytes[2 * i]! << 8) | bytes[2 * i + 1]!);
  let best = { at: -1, length: 1 };
  for (let i = 0; i < 8;) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > best.length) best = { at: i, length: j - i };
    i = j === i ? i + 1 : j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best.at < 0) return hex.join(":");
  return `${hex.slice(0, best.at).join(":")}::${hex.slice(best.at + best.length).join(":")}`;
};

/** An address's canonical text, or undefined when `text` is not an address. */
export const canonicalIp = (text: string): string | undefined => {
  const bytes = parseIp(text);
  return bytes && formatIp(bytes);
};

/** One TRUSTED_PROXIES entry: an address or a CIDR network; undefined when it is neither. */
export const parseCidr = (text: string): Cidr | undefined => {
  const [address = "", prefixText, ...rest] = text.split("/");
  if (rest.length > 0) return undefined;
  const raw = address.includes(":") ? parseIpv6(address) : parseIpv4(address);
  if (!raw) return undefined;
  const max = raw.length * 8;
  if (prefixText === undefined) return { bytes: unmapped(raw), prefix: unmapped(raw).length * 8 };
  if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > max) return undefined;
  const prefix = Number(prefixText);
  const bytes = unmapped(raw);
  // `::ffff:10.0.0.0/104` is the IPv4 network 10.0.0.0/8
  return { bytes, prefix: bytes.length === raw.length ? prefix : Math.max(0, prefix - 96) };
};

/** A comma list of addresses and networks; the error names the first entry that is neither. */
export const parseTrustedProxies = (
  text: string,
): { readonly proxies: ReadonlyArray<Cidr> } | { readonly error: string } => {
  const proxies: Array<Cidr> = [];
  for (const entry of text.split(",").map((e) => e.trim()).filter((e) => e !== "")) {
    const cidr = parseCidr(entry);
    if (!cidr) {
      return {
        error: `expected a comma list of IP addresses and CIDR networks (10.0.0.1, 10.0.0.0/8, fd00::/8), ` +
          `got "${entry.slice(0, 60)}"`,
      };
    }
    proxies.push(cidr);
  }
  return { proxies };
};

const within = (bytes: Bytes, cidr: Cidr): boolean => {
  if (bytes.length !== cidr.bytes.length) return false;
  const whole = cidr.prefix >> 3;
  for (let i = 0; i < whole; i++) if (bytes[i] !== cidr.bytes[i]) return false;
  const bits = cidr.prefix & 7;
  if (bits === 0) return true;
  const mask = (0xff << (8 - bits)) & 0xff;
  return (bytes[whole]! & mask) === (cidr.bytes[whole]! & mask);
};

const trusted = (bytes: Bytes, proxies: ReadonlyArray<Cidr>) => proxies.some((p) => within(bytes, p));

const portOk = (port: string | undefined) => port === undefined || Number(port) <= 65535;

/** One hop of `X-Forwarded-For`: an address, optionally bracketed (IPv6) and with a port. */
const forwardedForHop = (text: string): Bytes | undefined => {
  const hop = text.trim();
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(hop);
  if (bracketed) {
    return bracketed[1]!.includes(":") && portOk(bracketed[2]) ? parseIp(bracketed[1]!) : undefined;
  }
  const withPort = /^([^:]+):(\d{1,5})$/.exec(hop); // IPv4 with a port
  if (withPort) return portOk(withPort[2]) ? parseIp(withPort[1]!) : undefined;
  return parseIp(hop);
};

/** One element of `Forwarded`: its `for=` node (quoted IPv6 in brackets, optionally with a port). */
const forwardedHop = (text: string): Bytes | undefined => {
  let node: string | undefined;
  for (const pair of text.split(";")) {
    const eq = pair.indexOf("=");
    if (eq < 0) return undefined;
    if (pair.slice(0, eq).trim().toLowerCase() !== "for") continue;
    if (node !== undefined) return undefined; // two `for=` in one element
    const value = pair.slice(eq + 1).trim();
    node = value.startsWith('"') ? (/^"([^"\\]*)"$/.exec(value)?.[1] ?? "") : value;
  }
  return node === undefined ? undefined : forwardedForHop(node);
};

/** The most hops walked from the right; a longer chain of trusted proxies is no real deployment. */
const maxHops = 32;

/**
 * The client in a chain of hops (`a, b, c`: c the last proxy's peer): the rightmost hop that is not a trusted
 * proxy, walking at most `maxHops` from the right so a huge header costs no more than a short one. Undefined
 * when a hop walked over is malformed, or every hop is trusted, or the walk is too long.
 */
const clientInChain = (
  header: string,
  hop: (text: string) => Bytes | undefined,
  proxies: ReadonlyArray<Cidr>,
): Bytes | undefined => {
  let end = header.length;
  for (let walked = 0; walked < maxHops && end >= 0; walked++) {
    const comma = header.lastIndexOf(",", end - 1);
    const bytes = end - comma > 128 ? undefined : hop(header.slice(comma + 1, end));
    if (!bytes) return undefined;
    if (!trusted(bytes, proxies)) return bytes;
    if (comma < 0) return undefined;
    end = comma;
  }
  return undefined;
};

/** The headers a proxy may add, as the request carries them (several lines of one header joined by `, `). */
export interface ForwardingHeaders {
  readonly xForwardedFor: string | null;
  readonly forwarded: string | null;
}

/**
 * The client's address: the peer's own, unless the peer is a trusted proxy and its forwarding headers name a
 * client (see the module comment). `peer` is the socket's address as the server gives it.
 */
export const clientAddressOf = (
  peer: string,
  headers: ForwardingHeaders,
  proxies: ReadonlyArray<Cidr>,
): string => {
  const peerBytes = parseIp(peer);
  if (!peerBytes) return peer;
  const own = formatIp(peerBytes);
  if (proxies.length === 0 || !trusted(peerBytes, proxies)) return own;
  const fromXff = headers.xForwardedFor === null
    ? undefined
    : clientInChain(headers.xForwardedFor, forwardedForHop, proxies);
  const fromForwarded = headers.forwarded === null
    ? undefined
    : clientInChain(headers.forwarded, forwardedHop, proxies);
  if (headers.xForwardedFor !== null && headers.forwarded !== null) {
    // a proxy writes one of them; the other came from the client: only an agreeing pair is believed
    return fromXff && fromForwarded && formatIp(fromXff) === formatIp(fromForwarded)
      ? formatIp(fromXff)
      : own;
  }
  const found = fromXff ?? fromForwarded;
  return found ? formatIp(found) : own;
};

/** The unit an address is counted in: itself for IPv4, its /64 for IPv6. */
export const addressGroup = (address: string): string => {
  if (!address.includes(":")) return address;
  const mapped = address.match(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i);
  if (mapped) return mapped[1]!;
  const [head = "", tail] = address.toLowerCase().split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === undefined || tail === "" ? [] : tail.split(":");
  const groups = tail === undefined
    ? left
    : [...left, ...Array(8 - left.length - right.length).fill("0"), ...right];
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, "")).join(":")}::/64`;
};
