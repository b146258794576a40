import { apiErrorFrom, csrfHeaders } from '../../api/client';

/** Where an upload stands: bytes sent so far, then (once the file is sent) waiting for the server's answer. */
export interface UploadProgress {
  sent: number;
  total: number;
  /** The whole file is sent; the server is reading it. */
  sentAll: boolean;
}

/**
 * POSTs a file as the raw request body and answers the JSON reply. Sent
 * with XMLHttpRequest rather than fetch: only it reports upload progress.
 * Same origin, the session cookie and the CSRF header, like every write of
 * the console; an error answer becomes the same ApiError `send` throws.
 */
export function uploadFile<T>(path: string, file: Blob, contentType: string, onProgress: (p: UploadProgress) => void, signal?: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', path);
    xhr.withCredentials = true;
    xhr.setRequestHeader('Content-Type', contentType);
    xhr.setRequestHeader('Accept', 'application/json');
    for (const [name, value] of Object.entries(csrfHeaders())) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (e) => onProgress({ sent: e.loaded, total: e.lengthComputable ? e.total : file.size, sentAll: false });
    xhr.upload.onload = () => onProgress({ sent: file.size, total: file.size, sentAll: true });
    xhr.onerror = () => reject(new Error('The upload failed: the connection to the server was lost'));
    xhr.onabort = () => reject(new DOMException('The upload was cancelled', 'AbortError'));
    xhr.onload = () => {
      if (xhr.status < 200 || xhr.status >= 300) return reject(apiErrorFrom(xhr.status, xhr.statusText, xhr.responseText));
      try {
        resolve(JSON.parse(xhr.responseText) as T);
      } catch {
        reject(new Error('The server answered the upload with something that is not JSON'));
      }
    };
    signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send(file);
  });
}

/** Bytes as a person reads them: 980 B, 12.4 KB, 3.1 MB. */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} KB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}
