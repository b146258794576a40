import { useId } from 'react';
import { ProblemNote, problemAt, problemProps } from '../../ui/field-problem';
import { SCHEME_LABELS, TIMED_SCHEMES, type VerificationDraft } from './webhook-verification';
import { VERIFICATION_SCHEMES, type VerificationScheme } from './workflow-model';

interface Props {
  draft: VerificationDraft;
  onChange(draft: VerificationDraft): void;
  /** The API's answer to the last save: its field problems show beside the fields they name. */
  error: unknown;
  /** The trigger already has a signing secret: leaving the field empty keeps it. */
  hasSecret?: boolean;
}

const SCHEME_OPTIONS: Record<VerificationScheme, string> = {
  ...SCHEME_LABELS,
  hmac: 'HMAC (a header of your choice)',
};

/** The verification settings of a webhook trigger: the scheme, the signing secret, and for hmac its layout. */
export function VerificationFields({ draft, onChange, error, hasSecret = false }: Props) {
  const id = useId();
  const set =
    <K extends keyof VerificationDraft>(key: K) =>
    (e: { target: { value: string } }) =>
      onChange({ ...draft, [key]: e.target.value as VerificationDraft[K] });
  const scheme = draft.scheme;
  const secretHint = hasSecret
    ? 'Leave it empty to keep the current one.'
    : scheme === 'hmac'
      ? 'Leave it empty to have one generated (shown once).'
      : scheme
        ? `As ${SCHEME_LABELS[scheme]} shows it for this endpoint.`
        : '';

  /** One text input with its label, hint and the API's problem for `path`. */
  const text = (
    key: 'signingSecret' | 'toleranceSeconds' | 'header' | 'prefix' | 'timestampHeader' | 'payload',
    label: string,
    path: string,
    extra = {},
    hint = '',
  ) => {
    const field = `${id}-${key}`;
    const problem = problemAt(error, path);
    return (
      <div className="field">
        <label htmlFor={field}>{label}</label>
        <input
          id={field}
          value={draft[key]}
          onChange={set(key)}
          autoComplete="off"
          {...extra}
          {...problemProps(field, problem, hint ? `${field}-hint` : undefined)}
        />
        {hint && (
          <span id={`${field}-hint`} className="muted hint">
            {hint}
          </span>
        )}
        <ProblemNote id={field} problem={problem} />
      </div>
    );
  };
  const schemeProblem = problemAt(error, 'verification.scheme') ?? (problemAt(error, 'verification.header') ? undefined : problemAt(error, 'verification'));

  return (
    <fieldset className="verification-fields">
      <legend>Signature verification</legend>
      <div className="field">
        <label htmlFor={`${id}-scheme`}>Scheme</label>
        <select id={`${id}-scheme`} value={scheme} onChange={set('scheme')} {...problemProps(`${id}-scheme`, schemeProblem)}>
          <option value="">None: no signature checked</option>
          {VERIFICATION_SCHEMES.map((s) => (
            <option key={s} value={s}>
              {SCHEME_OPTIONS[s]}
            </option>
          ))}
        </select>
        <ProblemNote id={`${id}-scheme`} problem={schemeProblem} />
      </div>
      {scheme && text('signingSecret', 'Signing secret', 'signingSecret', { type: 'password', required: !hasSecret && scheme !== 'hmac' }, secretHint)}
      {scheme === 'hmac' && (
        <>
          {text('header', 'Signature header', 'verification.header', { required: true, placeholder: 'X-Signature' })}
          <div className="field">
            <label htmlFor={`${id}-algorithm`}>Algorithm</label>
            <select id={`${id}-algorithm`} value={draft.algorithm} onChange={set('algorithm')}>
              <option value="sha256">SHA-256</option>
              <option value="sha512">SHA-512</option>
            </select>
          </div>
          <div className="field">
            <label htmlFor={`${id}-encoding`}>Encoding</label>
            <select id={`${id}-encoding`} value={draft.encoding} onChange={set('encoding')}>
              <option value="hex">hex</option>
              <option value="base64">base64</option>
            </select>
          </div>
          {text('prefix', 'Prefix (optional)', 'verification.prefix', { placeholder: 'sha256=' })}
          {text('timestampHeader', 'Timestamp header (optional)', 'verification.timestampHeader', { placeholder: 'X-Timestamp' })}
          {text('payload', 'Signed payload (optional)', 'verification.payload', {
            placeholder: draft.timestampHeader ? '{timestamp}.{body}' : '{body}',
          })}
        </>
      )}
      {scheme &&
        TIMED_SCHEMES.includes(scheme) &&
        (scheme !== 'hmac' || draft.timestampHeader) &&
        text('toleranceSeconds', 'Timestamp tolerance (seconds)', 'verification.toleranceSeconds', { type: 'number', min: 1, max: 86_400, placeholder: '300' })}
    </fieldset>
  );
}
