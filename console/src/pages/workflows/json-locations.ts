/**
 * Where each value of a JSON text sits, by the dotted path the API names
 * fields with (`steps.2.input.url`): the editor puts a save's errors there.
 */

export interface Location {
  /** The property name's start when the value is an object member, else the value's start. */
  from: number;
  /** The end of the value. */
  to: number;
  /** The end of the property name (or of the value's first character), for a short mark. */
  headTo: number;
}

/** Locations of every value in `text`, keyed by path ('' is the root); as far as the text parses. */
export function jsonLocations(text: string): Map<string, Location> {
  const found = new Map<string, Location>();
  let i = 0;
  const space = () => {
    while (i < text.length && /\s/.test(text[i])) i++;
  };
  const string = () => {
    const start = i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (path: string, from: number, headTo: number): void => {
    space();
    const start = i;
    if (text[i] === '{') {
      i++;
      space();
      while (i < text.length && text[i] !== '}') {
        space();
        const keyFrom = i;
        const key = string();
        const keyTo = i;
        space();
        if (text[i] !== ':') throw new Error('expected :');
        i++;
        value(path ? `${path}.${key}` : key, keyFrom, keyTo);
        space();
        if (text[i] === ',') i++;
        space();
      }
      i++;
    } else if (text[i] === '[') {
      i++;
      let index = 0;
      space();
      while (i < text.length && text[i] !== ']') {
        space();
        const itemFrom = i;
        value(path ? `${path}.${index}` : String(index), itemFrom, itemFrom + 1);
        index++;
        space();
        if (text[i] === ',') i++;
        space();
      }
      i++;
    } else if (text[i] === '"') {
      string();
    } else {
      while (i < text.length && /[^\s,\]}]/.test(text[i])) i++;
    }
    found.set(path, { from: from < 0 ? start : from, to: i, headTo: headTo < 0 ? Math.min(i, start + 1) : headTo });
  };
  try {
    value('', -1, -1);
  } catch {
    // Text that does not parse: the locations read so far.
  }
  return found;
}

/**
 * The location of `path`, or of its nearest existing ancestor when the field
 * is missing (a required `url` not written); `missing` is the part not found.
 */
export function locate(text: string, path: string): { location: Location; missing: string } | undefined {
  const locations = jsonLocations(text);
  const parts = path === '(root)' ? [] : path.split('.');
  for (let n = parts.length; n >= 0; n--) {
    const location = locations.get(parts.slice(0, n).join('.'));
    if (location) return { location, missing: parts.slice(n).join('.') };
  }
  return undefined;
}
