import { type ChangeEvent, useId, useState } from 'react';

/** The user's colour theme; `system` follows `prefers-color-scheme`. */
export type Theme = 'light' | 'dark' | 'system';

const THEMES: readonly { readonly value: Theme; readonly label: string }[] = [
  { value: 'system', label: 'System' },
  { value: 'light', label: 'Light' },
  { value: 'dark', label: 'Dark' },
];

/** The localStorage key public/theme.js also reads, before the first paint. */
const STORAGE_KEY = 'svc-theme';

function isTheme(value: unknown): value is Theme {
  return value === 'light' || value === 'dark' || value === 'system';
}

/** The remembered theme; `system` when none is stored or storage is blocked. */
export function storedTheme(): Theme {
  try {
    const value = window.localStorage.getItem(STORAGE_KEY);
    return isTheme(value) ? value : 'system';
  } catch {
    return 'system';
  }
}

/** Sets `data-theme` on <html> (styles.css redefines its colour variables from it) and remembers the choice. */
export function applyTheme(theme: Theme): void {
  const root = document.documentElement;
  if (theme === 'system') root.removeAttribute('data-theme');
  else root.setAttribute('data-theme', theme);
  try {
    if (theme === 'system') window.localStorage.removeItem(STORAGE_KEY);
    else window.localStorage.setItem(STORAGE_KEY, theme);
  } catch {
    // Storage blocked: the choice lasts for this page only.
  }
}

/** The Light / Dark / System switch in the user menu. */
export function ThemeSwitch() {
  const [theme, setTheme] = useState<Theme>(storedTheme);
  const id = useId();
  const onChange = (event: ChangeEvent<HTMLSelectElement>): void => {
    const next = event.target.value;
    if (!isTheme(next)) return;
    applyTheme(next);
    setTheme(next);
  };
  return (
    <span className="theme-switch">
      <label htmlFor={id}>Theme</label>
      <select id={id} value={theme} onChange={onChange}>
        {THEMES.map((t) => (
          <option key={t.value} value={t.value}>
            {t.label}
          </option>
        ))}
      </select>
    </span>
  );
}
