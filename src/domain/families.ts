/**
 * The endpoint families, in one place: what a key may be limited to (permission families) and what a request is
 * counted as (usage families), with the names people read and the chart's colours. Access, usage, the usage
 * report, the dashboard and the CLIs derive their vocabulary from here, so a new dialect is one entry in each
 * table below (and its chart colour in the dashboard's stylesheet follows).
 */

/**
 * What a key may be used for, in the order forms and messages list them. `jsonrpc` is the Ogmios-compatible
 * endpoint (HTTP and WebSocket), `blockfrost` the Blockfrost-compatible API (src/blockfrost/), and `submission`
 * is submitting a transaction through either (`submitTransaction`, `POST /tx/submit`), which needs both.
 */
export const permissionFamilyTable = {
  rest: { label: "REST", title: "REST" },
  explorer: { label: "explorer", title: "Explorer" },
  graphql: { label: "GraphQL", title: "GraphQL" },
  jsonrpc: { label: "JSON-RPC", title: "JSON-RPC" },
  blockfrost: { label: "Blockfrost-compatible", title: "Blockfrost" },
  submission: { label: "transaction submission", title: "Submissions" },
} as const satisfies Record<string, { readonly label: string; readonly title: string }>;

export type KeyFamily = keyof typeof permissionFamilyTable;

/** Every permission family, in table order. */
export const keyFamilies = Object.keys(permissionFamilyTable) as ReadonlyArray<KeyFamily>;

export interface UsageFamilySpec {
  /** The key permission families a request of this family needs (none: any key may). */
  readonly needs: ReadonlyArray<KeyFamily>;
  /** What a transaction submission of this family needs, when the family can submit. */
  readonly submissionNeeds?: ReadonlyArray<KeyFamily>;
  /** Its name on the dashboard's usage chart. */
  readonly chartLabel: string;
  /** Its colour on the usage chart. */
  readonly chartColour: string;
}

/**
 * What a request is counted as, in the order the usage chart stacks them. `ogmios` is the JSON-RPC endpoint and
 * `account` is the key's own info (`/v1/key`).
 */
export const usageFamilyTable = {
  rest: { needs: ["rest"], chartLabel: "REST", chartColour: "#1f77b4" },
  explorer: { needs: ["explorer"], chartLabel: "Explorer", chartColour: "#ff7f0e" },
  graphql: { needs: ["graphql"], chartLabel: "GraphQL", chartColour: "#2ca02c" },
  ogmios: {
    needs: ["jsonrpc"],
    submissionNeeds: ["jsonrpc", "submission"],
    chartLabel: "JSON-RPC",
    chartColour: "#9467bd",
  },
  blockfrost: {
    needs: ["blockfrost"],
    submissionNeeds: ["blockfrost", "submission"],
    chartLabel: "Blockfrost",
    chartColour: "#d62728",
  },
  account: { needs: [], chartLabel: "Key info", chartColour: "#8c8c8c" },
} as const satisfies Record<string, UsageFamilySpec>;

export type Family = keyof typeof usageFamilyTable;

/** Every usage family, in table order. */
export const usageFamilies = Object.keys(usageFamilyTable) as ReadonlyArray<Family>;

/** The chart's colour for a family it does not know. */
export const otherFamilyColour = "#17becf";
