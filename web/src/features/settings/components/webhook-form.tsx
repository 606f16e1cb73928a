import { type FormEvent, useState } from "react";
import type { WebhookEventName } from "@protocol/webhook-events";
import { Alert } from "../../../components/ui/alert";
import { Button } from "../../../components/ui/button";
import { Field } from "../../../components/ui/field";
import { readErrorMessage } from "../../../lib/api-client";
import { useCreateWebhook } from "../api/webhook-mutations";
import type { Webhook, WebhookFormat } from "../api/webhooks-api";
import { DEFAULT_EVENTS, EVENT_GROUPS } from "../utils/webhook-display";
import { Select } from "../../../components/ui/select";

type WebhookFormProps = { onCreated: (webhook: Webhook, secret: string) => void };

/** Adds a webhook: its URL, JSON or Slack, and the events it receives. */
export function WebhookForm({ onCreated }: WebhookFormProps) {
  const [url, setUrl] = useState("");
  const [format, setFormat] = useState<WebhookFormat>("json");
  const [events, setEvents] = useState<Set<WebhookEventName>>(new Set(DEFAULT_EVENTS));
  const [error, setError] = useState<string | null>(null);
  const { mutate: create, isPending: busy } = useCreateWebhook();

  const toggle = (event: WebhookEventName, on: boolean) =>
    setEvents((current) => {
      const next = new Set(current);
      if (on) next.add(event);
      else next.delete(event);
      return next;
    });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!url.trim()) return setError("Enter the URL that should receive the events.");
    if (events.size === 0) return setError("Choose at least one event.");
    setError(null);
    create(
      { url: url.trim(), events: [...events], format },
      {
        onSuccess: ({ secret, ...webhook }) => {
          onCreated(webhook, secret);
          setUrl("");
        },
        onError: (failure) => setError(readErrorMessage(failure) ?? "Failed to add the webhook. Please try again."),
      },
    );
  };

  return (
    <form onSubmit={submit} noValidate aria-label="Add a webhook" className="space-y-4 px-6 py-5">
      <div className="flex flex-wrap items-end gap-3">
        <Field
          className="min-w-64 flex-1"
          label="Webhook URL"
          type="url"
          value={url}
          placeholder="https://hooks.slack.com/services/…"
          onChange={(e) => setUrl(e.target.value)}
        />
        <div>
          <label htmlFor="webhook-format" className="block text-sm font-medium text-slate-700">
            Format
          </label>
          <Select id="webhook-format" className="mt-1" value={format} onChange={(e) => setFormat(e.target.value as WebhookFormat)}>
            <option value="json">JSON (signed)</option>
            <option value="slack">Slack incoming webhook</option>
          </Select>
        </div>
      </div>
      <fieldset className="grid gap-4 sm:grid-cols-2">
        <legend className="mb-2 text-sm font-medium text-slate-700">Events</legend>
        {EVENT_GROUPS.map((group) => (
          <div key={group.title} className="space-y-1">
            <p className="text-xs font-semibold uppercase tracking-wide text-slate-500">{group.title}</p>
            {group.events.map((name) => (
              <label key={name} className="flex items-center gap-2 text-sm text-slate-700">
                <input type="checkbox" checked={events.has(name)} onChange={(e) => toggle(name, e.target.checked)} />
                <code className="break-all">{name}</code>
              </label>
            ))}
          </div>
        ))}
      </fieldset>
      {error ? <Alert>{error}</Alert> : null}
      <Button type="submit" disabled={busy}>
        {busy ? "Adding..." : "Add Webhook"}
      </Button>
    </form>
  );
}
