// Where a rule stands in a list, for a lint that may be asked about one rule or about many: a lint of
// one rule (a write's) scans the list once, as cheap as it gets; from the second rule asked about (a
// batch of writes linted together), a map of the whole list answers instead.

/** The position of the item with an id in `items`, or -1. */
export function positionsIn(items: readonly { id: string }[]): (id: string) => number {
  let asked = 0;
  let index: Map<string, number> | undefined;
  return (id) => {
    if (!index && ++asked > 1) index = new Map(items.map((item, position) => [item.id, position]));
    return index ? (index.get(id) ?? -1) : items.findIndex((item) => item.id === id);
  };
}
