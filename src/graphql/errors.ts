/**
 * The spec's GraphQL error shape, `{message, extensions: {path, code}}`, with Hasura's style of path: a JSON
 * path into the request (`$.query`, `$.variableValues.limit`, `$.selectionSet.block.args.where.hash._eq`).
 */
import { type ASTNode, BREAK, type DocumentNode, Kind, visit } from "graphql";

export interface GraphqlError {
  readonly message: string;
  readonly extensions: { readonly path: string; readonly code: string };
}

export const graphqlError = (message: string, path: string, code: string): GraphqlError => ({
  message,
  extensions: { path, code },
});

const describe = (nodes: ReadonlyArray<ASTNode>): string => {
  let parts: Array<string> = ["$"];
  for (const n of nodes) {
    if (n.kind === Kind.FIELD) parts.push("selectionSet", n.alias?.value ?? n.name.value);
    else if (n.kind === Kind.ARGUMENT) parts.push("args", n.name.value);
    else if (n.kind === Kind.OBJECT_FIELD) parts.push(n.name.value);
    else if (n.kind === Kind.FRAGMENT_DEFINITION) parts = ["$", "fragments", n.name.value];
    else if (n.kind === Kind.VARIABLE_DEFINITION) parts = ["$", "variableValues", n.variable.name.value];
  }
  return parts.join(".");
};

/** Where in the request a node of the query sits; `$.query` when it cannot be placed. */
export const pathOf = (document: DocumentNode, target: ASTNode | undefined): string => {
  if (!target) return "$.query";
  let found = "$.query";
  visit(document, {
    enter(node, _key, parent, _path, ancestors) {
      if (node !== target) return undefined;
      // ancestors stop before the parent, which is the object field or argument holding a value
      const chain = [...ancestors, parent].filter((a): a is ASTNode =>
        a !== undefined && !Array.isArray(a) && typeof a === "object" && "kind" in a
      );
      found = describe([...chain, node]);
      return BREAK;
    },
  });
  return found;
};
