// Applies the remembered colour theme before the first paint (the CSP allows only same-origin scripts, so this
// cannot be inline). "system" or nothing leaves <html> without data-theme, and prefers-color-scheme decides.
try {
  const theme = window.localStorage.getItem('svc-theme');
  if (theme === 'light' || theme === 'dark') document.documentElement.setAttribute('data-theme', theme);
} catch (_) {
  // Storage blocked: follow the system setting.
}
