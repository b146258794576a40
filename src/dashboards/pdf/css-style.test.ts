import { pageBreaks, parseColor, parseFontSize, parseFontWeight, parseLength, parseTextAlign, styleDeclarations } from './css-style';
import { parseTransform } from './svg-transform';

describe('inline style subset', () => {
  it('reads declarations, skipping malformed ones and !important', () => {
    expect([...styleDeclarations('COLOR: red; font-weight:bold !important; nonsense; a{b}').entries()]).toEqual([
      ['color', 'red'],
      ['font-weight', 'bold'],
    ]);
    expect(styleDeclarations('/* unterminated').size).toBe(0);
  });

  it('reads colours: names, hex, rgb(a); nothing for the rest', () => {
    expect(parseColor('steelblue')).toEqual({ rgb: [70, 130, 180], alpha: 1 });
    expect(parseColor('#f00')).toEqual({ rgb: [255, 0, 0], alpha: 1 });
    expect(parseColor('rgba(1, 2, 3, 0.5)')).toEqual({ rgb: [1, 2, 3], alpha: 0.5 });
    expect(parseColor('var(--x)')).toBeUndefined();
  });

  it('reads lengths as points and clamps font sizes', () => {
    expect(parseLength('100px', 10)).toBe(75);
    expect(parseLength('100', 10)).toBe(75);
    expect(parseLength('2em', 10)).toBe(20);
    expect(parseLength('50%', 10, 400)).toBe(200);
    expect(parseLength('50%', 10)).toBeUndefined();
    expect(parseLength('calc(1px)', 10)).toBeUndefined();
    expect(parseFontSize('99999px', 10)).toBe(96);
    expect(parseFontSize('larger', 10)).toBe(12);
    expect(parseFontSize('constructor', 10)).toBeUndefined();
  });

  it('reads weights, alignment and page breaks', () => {
    expect(parseFontWeight('700')).toBe(true);
    expect(parseFontWeight('normal')).toBe(false);
    expect(parseFontWeight('heavy')).toBeUndefined();
    expect(parseTextAlign('end')).toBe('right');
    expect(pageBreaks(styleDeclarations('page-break-before: always'))).toEqual({ before: true, after: false });
    expect(pageBreaks(styleDeclarations('break-after: page'))).toEqual({ before: false, after: true });
    expect(pageBreaks(styleDeclarations('break-after: avoid'))).toEqual({ before: false, after: false });
  });
});

describe('SVG transform lists', () => {
  it('reads each function as a matrix, in order', () => {
    expect(parseTransform('translate(10 20) scale(2)')).toEqual([
      [1, 0, 0, 1, 10, 20],
      [2, 0, 0, 2, 0, 0],
    ]);
    expect(parseTransform('matrix(1,2,3,4,5,6)')).toEqual([[1, 2, 3, 4, 5, 6]]);
    const [rotate] = parseTransform('rotate(90 10 10)');
    expect(rotate.map((n) => Math.round(n) + 0)).toEqual([0, 1, -1, 0, 20, 0]);
  });

  it('skips functions it cannot read', () => {
    expect(parseTransform('rotate(nonsense) scale(1, 2, 3) translate(5)')).toEqual([[1, 0, 0, 1, 5, 0]]);
    expect(parseTransform(undefined)).toEqual([]);
  });
});
