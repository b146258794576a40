import { parse } from 'content-disposition';
import { pdfFileName } from './file-name';

/**
 * Every header value is one line of visible ASCII; the filename a token or a
 * quoted string free of quotes, slashes and backslashes; filename* percent-encoded.
 */
function expectSafe(header: string) {
  expect(header).toMatch(/^attachment; filename=("[^"\\/]*\.pdf"|[A-Za-z0-9!#$&+.^_`|~-]+\.pdf)(; filename\*=UTF-8''[A-Za-z0-9!#$&+.^_`|~%-]+\.pdf)?$/);
  expect(header).not.toMatch(/[\r\n\0]/);
}

describe('pdfFileName', () => {
  it('names the file from the title, plain ASCII without filename*', () => {
    expect(pdfFileName('Sales Q3', 'Dashboard')).toBe('attachment; filename="Sales Q3.pdf"');
  });

  it('falls back to the dashboard name when the title is missing, empty or only unusable characters', () => {
    expect(pdfFileName(undefined, 'Revenue')).toBe('attachment; filename=Revenue.pdf');
    expect(pdfFileName('', 'Revenue')).toBe('attachment; filename=Revenue.pdf');
    expect(pdfFileName('  \r\n ... ', 'Revenue')).toBe('attachment; filename=Revenue.pdf');
    expect(pdfFileName(undefined, '')).toBe('attachment; filename=dashboard.pdf');
  });

  it('drops quotes and turns CR/LF into spaces, so no header can be injected', () => {
    const header = pdfFileName('Q3 "final"\r\nSet-Cookie: a=b', 'x');
    expectSafe(header);
    expect(parse(header).parameters.filename).toBe('Q3 final Set-Cookie_ a=b.pdf');
  });

  it('replaces path separators and leading dots: no traversal, no hidden file', () => {
    const header = pdfFileName('../../etc/passwd', 'x');
    expectSafe(header);
    expect(parse(header).parameters.filename).toBe('_.._etc_passwd.pdf');
    expect(parse(pdfFileName('C:\\Users\\me', 'x')).parameters.filename).toBe('C__Users_me.pdf');
  });

  it('keeps non-ASCII names in filename* (RFC 5987) with an ASCII fallback', () => {
    const header = pdfFileName('Café — Ventes 📈', 'x');
    expectSafe(header);
    expect(header).toContain('filename="Cafe _ Ventes _.pdf"');
    expect(parse(header).parameters.filename).toBe('Café — Ventes 📈.pdf');
  });

  it('gives an ASCII name for a title with no Latin letters', () => {
    const header = pdfFileName('売上レポート', 'x');
    expectSafe(header);
    expect(header).toContain('filename=dashboard.pdf;');
    expect(parse(header).parameters.filename).toBe('売上レポート.pdf');
  });

  it('does not double .pdf, and cuts very long titles to 100 characters', () => {
    expect(pdfFileName('report.PDF', 'x')).toBe('attachment; filename=report.pdf');
    const long = parse(pdfFileName('a'.repeat(500), 'x')).parameters.filename;
    expect(long).toBe(`${'a'.repeat(100)}.pdf`);
  });

  it('is safe for percent signs, semicolons and control characters', () => {
    for (const title of ['100% done; really', 'tab\there', 'nul\0byte', 'bell\x07', 'a\u2028b', '%2e%2e%2f']) expectSafe(pdfFileName(title, 'x'));
  });
});
