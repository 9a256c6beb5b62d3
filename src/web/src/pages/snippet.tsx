import { getJson } from '../api';
import { Breadcrumbs, ResourceView, Timestamp } from '../components';
import { paths } from '../router';
import type { Snippet } from '../types';
import { useLoader } from '../use-resource';

interface LoadedSnippet {
  readonly snippet: Snippet;
  readonly content: string;
}

async function readText(path: string): Promise<string> {
  const response = await fetch(path, { credentials: 'same-origin' });
  if (!response.ok) throw new Error(`${response.status} Could not read the snippet's content`);
  return response.text();
}

/** Loads a snippet (personal or project: `/snippets/:id` answers both, with the same permission checks). */
async function loadSnippet(id: string): Promise<LoadedSnippet> {
  const snippet = await getJson<Snippet>(`/api/v4/snippets/${id}`);
  const raw = snippet.project_id
    ? `/api/v4/projects/${snippet.project_id}/snippets/${id}/raw`
    : `/api/v4/snippets/${id}/raw`;
  return { snippet, content: await readText(raw) };
}

/** A snippet's page (its `web_url`): title, file name and content. */
export function SnippetPage({ id }: { readonly id: string }) {
  const loaded = useLoader(id, loadSnippet);
  return (
    <>
      <Breadcrumbs links={[{ to: paths.projects(), label: 'Projects' }]} current={`Snippet ${id}`} />
      <ResourceView resource={loaded}>
        {({ snippet, content }) => (
          <>
            <header className="page-header">
              <h1>{snippet.title}</h1>
              <p className="muted">
                <span className="badge">{snippet.visibility}</span> · by {snippet.author.name} ·{' '}
                <Timestamp value={snippet.created_at} />
              </p>
              {snippet.description ? <p>{snippet.description}</p> : null}
            </header>
            <section className="card section" aria-label={snippet.file_name}>
              <h2 className="mono small">{snippet.file_name}</h2>
              <pre className="code-block">{content}</pre>
            </section>
          </>
        )}
      </ResourceView>
    </>
  );
}
