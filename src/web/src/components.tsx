import type { ReactNode } from 'react';
import type { Resource } from './use-resource';

/** A polite, announced loading line. */
export function Loading({ label = 'Loading…' }: { readonly label?: string }) {
  return <output className="muted">{label}</output>;
}

/** An error from the server or the network, announced to assistive technology. */
export function ErrorNotice({ message }: { readonly message: string }) {
  return (
    <div className="notice notice-error" role="alert">
      {message}
    </div>
  );
}

/** Renders a resource: loading line, error notice, or `children(data)`. */
export function ResourceView<T>({
  resource,
  children,
}: {
  readonly resource: Resource<T>;
  readonly children: (data: T) => ReactNode;
}) {
  if (resource.status === 'loading') return <Loading />;
  if (resource.status === 'error') return <ErrorNotice message={resource.message} />;
  return <>{children(resource.data)}</>;
}

/** A timestamp shown in the reader's locale, with the exact value kept in `dateTime`. */
export function Timestamp({ value }: { readonly value: string | null | undefined }) {
  if (!value) return <span className="muted">never</span>;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return <span>{value}</span>;
  return (
    <time dateTime={value} title={date.toISOString()}>
      {date.toLocaleString()}
    </time>
  );
}
