// Imported rather than read at run time: the build (tsc, rootDir ".") emits it beside dist/src, so the same path works there.
import packageJson from '../../package.json';

/** The User-Agent the service sends where a vendor asks callers to name themselves (GitHub requires one). */
export const SERVICE_USER_AGENT = `Flowbase/${packageJson.version}`;
