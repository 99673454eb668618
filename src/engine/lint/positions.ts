// Where a rule stands in a list, for a lint that may be asked about one rule or about many: a lint of
// one rule (a write's) scans the list once, as cheap as it gets; from the second rule asked about (a
// batch of writes linted together), a map of the whole list answers instead.

/** The maps made so far, per list: the checks of one lint each ask where rules stand in the same list. */
const maps = new WeakMap<readonly { id: string }[], Map<string, number>>();

/** Every item's position by id, made once per list. */
export function positionMapOf(items: readonly { id: string }[]): Map<string, number> {
  let index = maps.get(items);
  if (!index) {
    index = new Map(items.map((item, position) => [item.id, position]));
    maps.set(items, index);
  }
  return index;
}

/** The map of the list's positions if one was made (or carried over), else undefined. */
export const madePositionMap = (items: readonly { id: string }[]) => maps.get(items);

/**
 * `longer` is `shorter` with items added at its end (a workspace after creates): a map made for
 * `shorter` is moved to it and extended, instead of made again for the whole list.
 */
export function extendPositions(shorter: readonly { id: string }[], longer: readonly { id: string }[]): void {
  const index = maps.get(shorter);
  if (!index) return;
  maps.delete(shorter);
  for (let position = shorter.length; position < longer.length; position++)
    index.set((longer[position] as { id: string }).id, position);
  maps.set(longer, index);
}

/** The position of the item with an id in `items`, or -1. */
export function positionsIn(items: readonly { id: string }[]): (id: string) => number {
  let asked = 0;
  return (id) => {
    const index = ++asked > 1 ? positionMapOf(items) : maps.get(items);
    return index ? (index.get(id) ?? -1) : items.findIndex((item) => item.id === id);
  };
}
