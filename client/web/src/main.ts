import { App } from "./app";
import "./style.css";
import "./styles/cards.css";
import "./styles/talk.css";
import "./styles/report.css";
import "./styles/invite.css";
import "./styles/challenges.css";
import "./styles/theme.css";
import "./styles/settings.css";
import "./styles/layout.css";
import "./styles/motion.css";

const root = document.getElementById("app");
if (root) new App(root).start();
