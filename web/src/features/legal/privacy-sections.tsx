import { COMPANY_NAME, PRIVACY_EMAIL, SUPPORT_EMAIL } from "../../config/site";
import type { LegalSection } from "./components/legal-page";

export const PRIVACY_LAST_UPDATED = "September 19, 2025";

export const PRIVACY_INTRO = (
  <>
    <p>
      This Privacy Notice for {COMPANY_NAME} ("we", "us" or "our") describes how and why we might access, collect, store, use and share ("process") your
      personal information when you use our services ("Services"): our website, our web application, and the DBVault backup agent you run on your own servers.
    </p>
    <p>
      In short: the only personal data we collect is your e-mail address. Your databases are encrypted on your own server before anything reaches us, and we
      never receive your connection strings or your encryption key. If you do not agree with our practices, please do not use our Services.
    </p>
  </>
);

export const PRIVACY_SECTIONS: LegalSection[] = [
  {
    id: "information-we-collect",
    title: "What information do we collect?",
    body: (
      <>
        <p>
          <strong>Personal information you disclose to us.</strong> The only personal data we collect is your e-mail address, which you give us when you
          register and which we use to sign you in and to write to you. The display name you choose at sign-up is used only to address you and does not need to
          be your real name.
        </p>
        <p>
          <strong>Payment data.</strong> If you buy a paid plan, your payment is handled by our card payment provider. Card numbers and other payment details go
          to that provider directly; we never see or store them. We only receive a confirmation of the payment and the plan bought.
        </p>
        <p>
          <strong>Service data.</strong> To run the Services we keep technical records that are not personal data about you: the names (not the contents) of the
          databases you back up, the size, status and time of each backup and restore, the agents you connect (name, host name, platform and version), your
          settings, and an audit log of actions on your account.
        </p>
        <p>
          <strong>Your backups.</strong> Backup files are encrypted with AES-256 by the agent on your server, with a key that stays there. We store only
          ciphertext and cannot read it. Connection strings never leave your server.
        </p>
        <p>
          <strong>Information collected automatically.</strong> Our servers see the IP address of each request. We use it briefly, in memory, to protect sign-in
          and password reset against abuse (rate limiting), and it is not kept in a profile about you.
        </p>
      </>
    ),
  },
  {
    id: "how-we-process",
    title: "How do we process your information?",
    body: (
      <>
        <p>
          We process your information to provide, improve and administer the Services, to communicate with you, for security and fraud prevention, and to comply
          with law. In particular we use your e-mail address to:
        </p>
        <ul>
          <li>create your account and sign you in;</li>
          <li>send password reset links you ask for;</li>
          <li>send the backup, failure and agent notifications you choose in your settings;</li>
          <li>answer your support requests and tell you about important changes to the Services.</li>
        </ul>
        <p>We do not use your information for advertising and we do not build marketing profiles.</p>
      </>
    ),
  },
  {
    id: "legal-bases",
    title: "What legal bases do we rely on to process your information?",
    body: (
      <>
        <p>If you are in the European Economic Area (EEA), the United Kingdom or Switzerland, we rely on these legal bases:</p>
        <ul>
          <li>
            <strong>Performance of a contract:</strong> to provide the Services you signed up for.
          </li>
          <li>
            <strong>Legitimate interests:</strong> to keep the Services secure, for example by limiting repeated sign-in attempts.
          </li>
          <li>
            <strong>Legal obligations:</strong> to keep records the law requires, such as those for payments.
          </li>
          <li>
            <strong>Consent:</strong> where we ask for it; you may withdraw consent at any time.
          </li>
        </ul>
      </>
    ),
  },
  {
    id: "sharing",
    title: "When and with whom do we share your personal information?",
    body: (
      <>
        <p>
          We do not sell your personal information, and we do not share it with third parties for their own purposes. We have not sold or shared personal
          information in the preceding twelve months.
        </p>
        <p>We use a small number of service providers who process data on our behalf and under contract:</p>
        <ul>
          <li>our hosting and storage provider in the United States, which stores the service database and your encrypted backups;</li>
          <li>our card payment provider, which processes payments for paid plans;</li>
          <li>our e-mail delivery provider, which delivers the e-mails we send you.</li>
        </ul>
        <p>
          We may also disclose information where the law requires it, or in connection with a merger or sale of the business, in which case this notice
          continues to apply.
        </p>
      </>
    ),
  },
  {
    id: "cookies",
    title: "Do we use cookies and other tracking technologies?",
    body: (
      <>
        <p>
          We do not use tracking cookies, analytics or advertising technologies. The web application stores your sign-in session in your browser's local storage
          so that you stay signed in; it is removed when you sign out.
        </p>
        <p>
          Our pages make no requests to third parties. Fonts, scripts, styles and images are all served from our own servers, so no external service learns that
          you visited us.
        </p>
      </>
    ),
  },
  {
    id: "international-transfers",
    title: "Is your information transferred internationally?",
    body: (
      <p>
        Our servers and storage are located in the United States. If you access the Services from elsewhere, your information is transferred to and processed in
        the United States. Where we transfer personal data from the EEA, the United Kingdom or Switzerland, we rely on the European Commission's Standard
        Contractual Clauses or another lawful transfer mechanism. Because backups are encrypted before they leave your server, their contents are never readable
        in transit or in storage, wherever that storage is.
      </p>
    ),
  },
  {
    id: "retention",
    title: "How long do we keep your information?",
    body: (
      <p>
        We keep your e-mail address for as long as you have an account. Backups are deleted automatically according to the retention you set and your plan
        allows. When you delete your account, we delete your personal information and your backups within 30 days, except for records we must keep by law (such
        as payment records), which we keep only for as long as the law requires.
      </p>
    ),
  },
  {
    id: "security",
    title: "How do we keep your information safe?",
    body: (
      <p>
        Backups are encrypted with AES-256 on your server, and the encryption key never reaches us (zero knowledge). Passwords are stored only as strong one-way
        hashes, API keys are encrypted at rest, all traffic uses TLS, and access to our systems is restricted and logged. No system is perfectly secure, so we
        cannot promise that information can never be accessed by unauthorised people; please keep your password, API key and encryption key safe as well.
      </p>
    ),
  },
  {
    id: "minors",
    title: "Do we collect information from minors?",
    body: (
      <p>
        We do not knowingly collect data from or market to children under 18 years of age. If we learn that personal information from users under 18 has been
        collected, we will deactivate the account and delete the data promptly. If you become aware of any data we may have collected from a child under 18,
        please contact us at {PRIVACY_EMAIL}.
      </p>
    ),
  },
  {
    id: "privacy-rights",
    title: "What are your privacy rights?",
    body: (
      <>
        <p>
          <strong>EEA and United Kingdom.</strong> You have the right to access your personal information, to have it corrected or erased, to restrict or object
          to its processing, to data portability, and to withdraw consent. You may also complain to your local data protection authority.
        </p>
        <p>
          <strong>Switzerland.</strong> You have the rights given by the Swiss Federal Act on Data Protection, including access, correction and deletion, and
          you may contact the Federal Data Protection and Information Commissioner.
        </p>
        <p>
          You can change your e-mail address in your profile at any time, and you may ask us to delete your account. To exercise any right, write to{" "}
          {PRIVACY_EMAIL}. We answer within the time limits the law sets.
        </p>
      </>
    ),
  },
  {
    id: "do-not-track",
    title: "Controls for Do-Not-Track features",
    body: (
      <>
        <p>
          Most browsers offer a Do-Not-Track ("DNT") setting. No uniform standard for recognising DNT signals has been finalised, so we do not respond to DNT
          browser signals. As we do not track you across websites in the first place, there is nothing for such a signal to switch off.
        </p>
        <p>
          We do honour the Global Privacy Control (GPC) signal. When your browser sends it, we treat it as a request to opt out of any sale or sharing of your
          personal information, which we in any case do not do.
        </p>
      </>
    ),
  },
  {
    id: "us-residents",
    title: "Do United States residents have specific privacy rights?",
    body: (
      <>
        <p>
          If you live in California, Colorado, Connecticut, Delaware, Montana, Oregon, Texas, Utah, Virginia or another US state with a consumer privacy law,
          you may have the right to know what personal information we hold about you, to access and correct it, to have it deleted, to obtain a copy in a
          portable format, and to opt out of its sale, sharing, targeted advertising or profiling.
        </p>
        <p>
          The only category of personal information we collect is an identifier: your e-mail address. We do not sell it or share it for targeted advertising,
          and we do not use it for profiling. We will not discriminate against you for exercising your rights. You may use an authorised agent, and if we deny
          your request you may appeal by replying to our decision.
        </p>
      </>
    ),
  },
  {
    id: "other-regions",
    title: "Do other regions have specific privacy rights?",
    body: (
      <>
        <p>
          <strong>Australia and New Zealand.</strong> We handle personal information in line with the Australian Privacy Act 1988 and New Zealand's Privacy Act
          2020. You may ask for access to and correction of your information. If you are not satisfied with our answer, you may complain to the Office of the
          Australian Information Commissioner or the New Zealand Privacy Commissioner.
        </p>
        <p>
          <strong>Republic of South Africa.</strong> You have the rights given by the Protection of Personal Information Act (POPIA), including access and
          correction. If we do not resolve your complaint, you may contact the Information Regulator (South Africa).
        </p>
      </>
    ),
  },
  {
    id: "updates",
    title: "Do we make updates to this notice?",
    body: (
      <p>
        We may update this Privacy Notice from time to time. The updated version is indicated by the "Last updated" date at the top. If we make material
        changes, we will tell you by e-mail or with a notice in the application before they take effect.
      </p>
    ),
  },
  {
    id: "contact",
    title: "How can you contact us about this notice?",
    body: (
      <p>
        If you have questions or comments about this notice, write to us at <a href={`mailto:${PRIVACY_EMAIL}`}>{PRIVACY_EMAIL}</a>, or contact our support at{" "}
        <a href={`mailto:${SUPPORT_EMAIL}`}>{SUPPORT_EMAIL}</a>.
      </p>
    ),
  },
  {
    id: "review-data",
    title: "How can you review, update, or delete the data we collect from you?",
    body: (
      <p>
        You can review and update your e-mail address from your profile at any time. To request access to, correction of, or deletion of your personal
        information, or to delete your account and backups, e-mail <a href={`mailto:${PRIVACY_EMAIL}`}>{PRIVACY_EMAIL}</a> from the address on your account.
      </p>
    ),
  },
];
