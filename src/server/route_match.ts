/**
 * Finding a path's routes without trying every route's pattern: the table is a tree of path segments (literal
 * segments by name, `:name` segments as one parameter branch), so a lookup costs the path's depth, not the
 * number of routes (the dialects together declare hundreds). Every route whose pattern matches is returned, in
 * table order, as the router's 405s and OPTIONS need each method the path takes.
 */
import type { Route } from "@src/http/route.ts";

export interface MatchedRoute {
  readonly route: Route;
  /** The path's `:name` segments, URI-decoded (as they came when they do not decode). */
  readonly params: Record<string, string>;
  /** The metrics' route family: the usage family of a protected route, `public` for the others. */
  readonly family: string;
}

interface Leaf {
  readonly order: number;
  readonly route: Route;
  /** Each parameter's name, by its segment's position. */
  readonly names: ReadonlyArray<readonly [position: number, name: string]>;
  readonly family: string;
}

interface Node {
  readonly literal: Map<string, Node>;
  param?: Node;
  readonly leaves: Array<Leaf>;
}

const node = (): Node => ({ literal: new Map(), leaves: [] });

const decoded = (segment: string): string => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};

export const makeRouteMatcher = (routes: ReadonlyArray<Route>) => {
  const root = node();
  routes.forEach((route, order) => {
    const segments = route.path.split("/");
    const names: Array<readonly [number, string]> = [];
    let at = root;
    segments.forEach((segment, position) => {
      if (segment.startsWith(":")) {
        names.push([position, segment.slice(1)]);
        at = at.param ??= node();
      } else {
        let next = at.literal.get(segment);
        if (!next) at.literal.set(segment, next = node());
        at = next;
      }
    });
    at.leaves.push({
      order,
      route,
      names,
      family: route.access === "public" ? "public" : route.access.family,
    });
  });

  const walk = (at: Node, segments: ReadonlyArray<string>, position: number, found: Array<Leaf>) => {
    if (position === segments.length) {
      found.push(...at.leaves);
      return;
    }
    const segment = segments[position]!;
    const literal = at.literal.get(segment);
    if (literal) walk(literal, segments, position + 1, found);
    // a parameter is a non-empty segment, as the patterns' `([^/]+)` was
    if (at.param && segment !== "") walk(at.param, segments, position + 1, found);
  };

  /** The routes whose path matches, in table order, with their decoded parameters. */
  return (pathname: string): Array<MatchedRoute> => {
    const segments = pathname.split("/");
    const found: Array<Leaf> = [];
    walk(root, segments, 0, found);
    if (found.length > 1) found.sort((a, b) => a.order - b.order);
    return found.map((leaf) => {
      const params: Record<string, string> = {};
      for (const [position, name] of leaf.names) params[name] = decoded(segments[position]!);
      return { route: leaf.route, params, family: leaf.family };
    });
  };
};
