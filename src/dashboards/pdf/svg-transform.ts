/** A 2-D affine matrix [a, b, c, d, e, f], as SVG and PDF both write it. */
export type Matrix = [number, number, number, number, number, number];

const FUNCTION = /(matrix|translate|scale|rotate|skewX|skewY)\s*\(([^)]*)\)/gi;

/**
 * The matrices of an SVG `transform` list, in order (each applies inside the
 * one before, as successive `doc.transform` calls do). A function with the
 * wrong number of arguments or a non-finite one is skipped, as browsers
 * ignore the whole attribute only for syntax they cannot read at all.
 */
export function parseTransform(value: string | undefined): Matrix[] {
  if (!value) return [];
  const matrices: Matrix[] = [];
  for (const [, name, args] of value.matchAll(FUNCTION)) {
    const n = args
      .trim()
      .split(/[\s,]+/)
      .filter(Boolean)
      .map(Number);
    if (!n.every(Number.isFinite)) continue;
    const matrix = toMatrix(name.toLowerCase(), n);
    if (matrix) matrices.push(matrix);
  }
  return matrices;
}

function toMatrix(name: string, n: number[]): Matrix | undefined {
  const rad = (deg: number) => (deg * Math.PI) / 180;
  switch (name) {
    case 'matrix':
      return n.length === 6 ? [n[0], n[1], n[2], n[3], n[4], n[5]] : undefined;
    case 'translate':
      return n.length === 1 || n.length === 2 ? [1, 0, 0, 1, n[0], n[1] ?? 0] : undefined;
    case 'scale':
      return n.length === 1 || n.length === 2 ? [n[0], 0, 0, n[1] ?? n[0], 0, 0] : undefined;
    case 'rotate': {
      if (n.length !== 1 && n.length !== 3) return undefined;
      const [cos, sin] = [Math.cos(rad(n[0])), Math.sin(rad(n[0]))];
      const [cx, cy] = [n[1] ?? 0, n[2] ?? 0];
      // rotate(a, cx, cy) = translate(cx, cy) rotate(a) translate(-cx, -cy)
      return [cos, sin, -sin, cos, cx - cos * cx + sin * cy, cy - sin * cx - cos * cy];
    }
    case 'skewx':
      return n.length === 1 ? [1, 0, Math.tan(rad(n[0])), 1, 0, 0] : undefined;
    case 'skewy':
      return n.length === 1 ? [1, Math.tan(rad(n[0])), 0, 1, 0, 0] : undefined;
    default:
      return undefined;
  }
}
