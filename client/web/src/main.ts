import { App } from "./app";
import "./style.css";
import "./styles/cards.css";

const root = document.getElementById("app");
if (root) new App(root).start();
