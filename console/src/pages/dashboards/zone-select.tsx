import { browserTimeZone, zoneChoices } from './dashboard-params';

interface Props {
  id: string;
  /** A zone, or '' for each viewer's own. */
  value: string;
  onChange(value: string): void;
  /** A zone to offer besides the usual list (the one stored, which may not be among them). */
  current?: string | null;
  describedBy?: string;
}

/** A dashboard's own time zone, as the new-dashboard form and the settings panel choose it: fixed, or each viewer's own. */
export function ZoneSelect({ id, value, onChange, current, describedBy }: Props) {
  return (
    <select id={id} value={value} onChange={(e) => onChange(e.target.value)} aria-describedby={describedBy}>
      <option value="">Each viewer's own</option>
      {zoneChoices(current, browserTimeZone()).map((z) => (
        <option key={z} value={z}>
          {z}
        </option>
      ))}
    </select>
  );
}
