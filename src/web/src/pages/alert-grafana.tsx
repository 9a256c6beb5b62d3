import type { ReactNode } from 'react';

/** What Grafana Alerting sends with each alert besides the Alertmanager fields. */
interface GrafanaExtras {
  readonly links: readonly { readonly label: string; readonly url: string }[];
  readonly image: string | null;
  readonly valueString: string | null;
  readonly values: readonly [string, string][];
}

/** An absolute http(s) URL, else null: nothing else (`javascript:`, `data:`) becomes a link or an image. */
export function httpUrl(value: unknown): string | null {
  if (typeof value !== 'string' || value.trim() === '') return null;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/**
 * The image is shown only where the browser will load it: an https image anywhere, an http image only on an http
 * page (on an https page it would be mixed content, so it is a link instead).
 */
export function showableImage(url: string | null, pageProtocol: string): boolean {
  if (url === null) return false;
  return url.startsWith('https:') || pageProtocol === 'http:';
}

/** Grafana's per-alert links, image and values from a stored payload; null when it has none of them. */
export function grafanaExtras(payload: unknown): GrafanaExtras | null {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return null;
  const p = payload as Record<string, unknown>;
  const links = (
    [
      ['Dashboard', p.dashboardURL],
      ['Panel', p.panelURL],
      ['Silence', p.silenceURL],
    ] as const
  ).flatMap(([label, v]) => {
    const url = httpUrl(v);
    return url === null ? [] : [{ label, url }];
  });
  const image = httpUrl(p.imageURL);
  const valueString = typeof p.valueString === 'string' && p.valueString.trim() !== '' ? p.valueString : null;
  const values =
    p.values !== null && typeof p.values === 'object' && !Array.isArray(p.values)
      ? Object.entries(p.values as Record<string, unknown>).map(([k, v]): [string, string] => [
          k,
          typeof v === 'string' ? v : JSON.stringify(v),
        ])
      : [];
  if (links.length === 0 && image === null && valueString === null && values.length === 0) return null;
  return { links, image, valueString, values };
}

/** Grafana's links (dashboard, panel, silence), its panel screenshot and the values that fired the alert. */
export function GrafanaSection({ payload }: { readonly payload: unknown }) {
  const extras = grafanaExtras(payload);
  if (extras === null) return null;
  const showImage = showableImage(extras.image, window.location.protocol);
  return (
    <section className="card section" aria-labelledby="alert-grafana">
      <h2 id="alert-grafana">Grafana</h2>
      <dl className="details" aria-labelledby="alert-grafana">
        {extras.links.length > 0 && (
          <Item label="Links">
            <ul className="inline-list">
              {extras.links.map((l) => (
                <li key={l.label}>
                  <a href={l.url} target="_blank" rel="noopener noreferrer">
                    {l.label}
                  </a>
                </li>
              ))}
            </ul>
          </Item>
        )}
        {extras.valueString !== null && (
          <Item label="Value">
            <code className="prewrap">{extras.valueString}</code>
          </Item>
        )}
        {extras.values.map(([k, v]) => (
          <Item key={k} label={`Value ${k}`}>
            <code>{v}</code>
          </Item>
        ))}
        {extras.image !== null && (
          <Item label="Image">
            {showImage ? (
              <a href={extras.image} target="_blank" rel="noopener noreferrer">
                <img
                  className="alert-image"
                  src={extras.image}
                  alt="Panel screenshot sent by Grafana"
                  referrerPolicy="no-referrer"
                  loading="lazy"
                />
              </a>
            ) : (
              <a href={extras.image} target="_blank" rel="noopener noreferrer">
                Panel screenshot (not shown: an http image on an https page)
              </a>
            )}
          </Item>
        )}
      </dl>
    </section>
  );
}

function Item({ label, children }: { readonly label: string; readonly children: ReactNode }) {
  return (
    <>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </>
  );
}
