import type { ReactNode } from "react";
import { ConfirmationHost } from "../../components/ui/confirm-dialog";
import { Toaster } from "../../components/ui/toaster";
import { Footer } from "./footer";
import { Navbar } from "./navbar";
import { ScrollManager } from "./scroll-manager";

export function AppShell({ children }: { children: ReactNode }) {
  return (
    <div className="flex min-h-screen flex-col bg-white text-slate-900">
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:fixed focus:left-4 focus:top-4 focus:z-[60] focus:rounded-md focus:bg-white focus:px-4 focus:py-2 focus:shadow"
      >
        Skip to content
      </a>
      <ScrollManager />
      <Navbar />
      <main id="main" tabIndex={-1} className="flex-1 outline-none">
        {children}
      </main>
      <Footer />
      <Toaster />
      <ConfirmationHost />
    </div>
  );
}
