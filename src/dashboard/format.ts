/** How the pages write times, counts and permissions. */
import { allFamilies, allNetworks, familyNames, type KeyView } from "./views.ts";

export const formatTime = (d: Date | null, none = "never"): string =>
  d === null ? none : `${d.toISOString().slice(0, 16).replace("T", " ")} UTC`;

export const formatDay = (d: Date | null, none = "never"): string =>
  d === null ? none : d.toISOString().slice(0, 10);

export const formatCount = (n: number): string => n.toLocaleString("en-US");

export const networksText = (k: Pick<KeyView, "networks">): string =>
  k.networks.length === 0 || allNetworks.every((n) => k.networks.includes(n))
    ? "all networks"
    : k.networks.join(", ");

export const familiesText = (k: Pick<KeyView, "families">): string =>
  k.families.length === 0 || allFamilies.every((f) => k.families.includes(f))
    ? "all APIs"
    : k.families.map((f) => familyNames[f] ?? f).join(", ");

/** A key's status as people read it: an expired key says so, whatever its stored status. */
export const statusOf = (k: Pick<KeyView, "status" | "expiresAt">, now: Date): string =>
  k.status !== "revoked" && k.expiresAt !== null && k.expiresAt.getTime() <= now.getTime()
    ? "expired"
    : k.status;
