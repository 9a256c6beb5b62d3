import { Link, paths } from '../router';

/** Shown for a client route that does not exist. */
export function NotFoundPage({ path }: { readonly path: string }) {
  return (
    <>
      <h1>Page not found</h1>
      <p>
        Nothing lives at <code>{path}</code>.
      </p>
      <p>
        <Link to={paths.projects()}>Back to projects</Link>
      </p>
    </>
  );
}
