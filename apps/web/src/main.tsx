import { createRoot } from "react-dom/client";
import { App } from "./app.tsx";
import { loadRuntimeConfig } from "./config/load-config.ts";
import "./styles.css";

const root = createRoot(document.getElementById("root")!);
loadRuntimeConfig()
  .then((config) => root.render(<App config={config} buildId={__CISTERN_BUILD_ID__} />))
  .catch((error: unknown) => {
    console.error("Invalid runtime config", error);
    root.render(<p style={{ padding: 24 }}>Cistern could not start: {String(error)}</p>);
  });
