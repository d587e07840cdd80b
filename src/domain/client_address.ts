/**
 * Client addresses as throttles count them (the request path's failed keys, the accounts' log-ins and sign-ups):
 * an IPv4 address is itself; an IPv6 address counts as its /64, since one host usually holds a whole /64.
 */

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
