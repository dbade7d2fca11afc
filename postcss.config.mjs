// Tailwind CSS v4: the PostCSS plugin is the whole integration (app/globals.css imports "tailwindcss").
const config = { plugins: { "@tailwindcss/postcss": {} } };
export default config;
