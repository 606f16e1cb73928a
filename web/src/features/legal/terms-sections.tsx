import { COMPANY_NAME, SUPPORT_EMAIL } from "../../config/site";
import type { LegalSection } from "./components/legal-page";

export const TERMS_LAST_UPDATED = "April 30, 2025";

export const TERMS_INTRO = (
  <>
    <p>
      We are {COMPANY_NAME} ("Company", "we", "us", "our"). We operate the DBVault website, web application and backup agent, and related products and services
      that refer or link to these legal terms (the "Legal Terms", together the "Services").
    </p>
    <p>
      These Legal Terms form a legally binding agreement between you, whether personally or on behalf of an entity ("you"), and {COMPANY_NAME}. By accessing the
      Services, you agree that you have read, understood and agree to be bound by all of these Legal Terms. If you do not agree with all of them, you are
      prohibited from using the Services and must stop using them immediately.
    </p>
  </>
);

export const TERMS_SECTIONS: LegalSection[] = [
  {
    id: "our-services",
    title: "Our Services",
    body: (
      <>
        <p>
          DBVault makes scheduled, encrypted backups of MongoDB databases. An agent you install on your own server dumps, encrypts and uploads your data; we
          store the encrypted files and let you manage, download and restore them.
        </p>
        <p>
          The Services are not tailored to comply with industry-specific regulations such as the Health Insurance Portability and Accountability Act (HIPAA),
          the Federal Information Security Management Act (FISMA) or the Gramm-Leach-Bliley Act (GLBA). If your interactions would be subject to such laws, you
          may not use the Services.
        </p>
      </>
    ),
  },
  {
    id: "intellectual-property",
    title: "Intellectual Property Rights",
    body: (
      <p>
        We own or license all intellectual property rights in the Services, including source code, databases, functionality, software, designs, text and
        graphics, and the trademarks, service marks and logos in them. Subject to these Legal Terms, we grant you a non-exclusive, non-transferable, revocable
        licence to use the Services for your personal or internal business purposes. Your data and your backups remain yours.
      </p>
    ),
  },
  {
    id: "user-representations",
    title: "User Representations",
    body: (
      <>
        <p>By using the Services, you represent and warrant that:</p>
        <ul>
          <li>all registration information you submit will be true, accurate, current and complete, and you will keep it so;</li>
          <li>you have the legal capacity to agree to these Legal Terms;</li>
          <li>you are not under the age of 13;</li>
          <li>if you are a minor in your jurisdiction, you have received parental permission to use the Services;</li>
          <li>you will not use the Services for any illegal or unauthorised purpose, and your use will not violate any applicable law.</li>
        </ul>
        <p>If you provide information that is untrue, inaccurate, not current or incomplete, we may suspend or terminate your account.</p>
      </>
    ),
  },
  {
    id: "user-registration",
    title: "User Registration",
    body: (
      <p>
        You need an account to use the Services. You agree to keep your password, your API key and your agent's encryption key confidential, and you are
        responsible for all use of your account and password. We may remove or change a display name you select if we determine that it is inappropriate,
        obscene or otherwise objectionable.
      </p>
    ),
  },
  {
    id: "purchases-payment",
    title: "Purchases and Payment",
    body: (
      <>
        <p>We accept the following forms of payment: PayPal, Mastercard and Visa.</p>
        <p>
          You agree to provide current, complete and accurate purchase and account information, and to promptly update your payment details so we can complete
          your transactions. Sales tax will be added to the price as we deem required. All payments are in US dollars. We may change prices at any time.
        </p>
      </>
    ),
  },
  {
    id: "subscriptions",
    title: "Subscriptions",
    body: (
      <>
        <p>
          <strong>Billing and renewal.</strong> Your subscription continues and automatically renews unless cancelled. You consent to our charging your payment
          method on a recurring basis without requiring your prior approval for each recurring charge, until you cancel.
        </p>
        <p>
          <strong>Free trial.</strong> We may offer a free trial to new accounts. At the end of the trial you are moved to a paid plan if you chose one, or kept
          on the free plan.
        </p>
        <p>
          <strong>No refunds.</strong> All purchases are non-refundable.
        </p>
        <p>
          <strong>Fee changes.</strong> We may change subscription fees from time to time and will communicate any price changes to you in advance.
        </p>
      </>
    ),
  },
  {
    id: "cancellation",
    title: "Cancellation",
    body: (
      <p>
        You can cancel your subscription at any time by logging into your account. Your cancellation will take effect at the end of the current paid term. If
        you are unsatisfied with the Services, please e-mail us at <a href={`mailto:${SUPPORT_EMAIL}`}>{SUPPORT_EMAIL}</a>.
      </p>
    ),
  },
  {
    id: "prohibited-activities",
    title: "Prohibited Activities",
    body: (
      <>
        <p>You may not use the Services for any purpose other than that for which we make them available. As a user of the Services, you agree not to:</p>
        <ul>
          <li>upload data you have no right to store, or use the Services to store unlawful content;</li>
          <li>attempt to gain unauthorised access to the Services, other accounts, or the systems and networks connected to them;</li>
          <li>interfere with, disrupt or place an unreasonable load on the Services, including by automated means;</li>
          <li>circumvent usage limits of your plan, or share your account or API key with people outside your organisation;</li>
          <li>copy, reverse engineer or resell the Services except as the law expressly allows.</li>
        </ul>
      </>
    ),
  },
  {
    id: "user-contributions",
    title: "User Generated Contributions",
    body: (
      <p>
        The Services do not offer users a way to publish content to other users. We may give you the opportunity to send us feedback, questions or suggestions
        ("Contributions"). When you do, you represent that your Contributions do not infringe anyone's rights and are not unlawful.
      </p>
    ),
  },
  {
    id: "contribution-license",
    title: "Contribution License",
    body: (
      <p>
        You agree that we may use any suggestions or other feedback you provide about the Services without compensation to you. Your backups and database
        contents are not Contributions: we claim no rights in them, and as they are encrypted with your key, we cannot read them.
      </p>
    ),
  },
  {
    id: "backup-data",
    title: "Your Backups and Encryption Keys",
    body: (
      <p>
        Because of our zero-knowledge design, your encryption key is created and kept on your server by the agent and is never sent to us. We cannot recover a
        lost key, and without it no backup can be restored. You are responsible for keeping your key safe, for checking that your backups complete, and for
        testing restores.
      </p>
    ),
  },
  {
    id: "third-party",
    title: "Third-Party Websites and Content",
    body: (
      <p>
        The Services may contain links to other websites, such as our community chat. We do not control or endorse such websites and are not responsible for
        their content or practices. When you follow such a link, these Legal Terms no longer govern.
      </p>
    ),
  },
  {
    id: "services-management",
    title: "Services Management",
    body: (
      <p>
        We reserve the right, but not the obligation, to monitor the Services for violations of these Legal Terms; to take appropriate legal action against
        anyone who violates them; to refuse, restrict or disable any of your use of the Services; and otherwise to manage the Services so as to protect our
        rights and property and to facilitate their proper functioning.
      </p>
    ),
  },
  {
    id: "privacy-policy",
    title: "Privacy Policy",
    body: (
      <p>
        We care about data privacy and security. Please review our Privacy Notice, which is part of these Legal Terms. The Services are hosted in the United
        States. If you access the Services from any other region with laws governing personal data that differ from US law, you are transferring your data to
        the United States and you consent to its transfer to and processing in the United States.
      </p>
    ),
  },
  {
    id: "term-termination",
    title: "Term and Termination",
    body: (
      <p>
        These Legal Terms remain in force while you use the Services. Without limiting any other provision, we reserve the right to, in our sole discretion and
        without notice or liability, deny access to and use of the Services, and to suspend or terminate your account, for any reason, including breach of these
        Legal Terms or of any applicable law. If we terminate or suspend your account, you may not register a new account under another name.
      </p>
    ),
  },
  {
    id: "modifications",
    title: "Modifications and Interruptions",
    body: (
      <p>
        We may change, modify or remove the contents of the Services at any time for any reason. We cannot guarantee the Services will be available at all
        times: we may experience hardware, software or other problems or need to perform maintenance, resulting in interruptions, delays or errors. You agree
        that we have no liability for any loss caused by your inability to access or use the Services during any downtime.
      </p>
    ),
  },
  {
    id: "governing-law",
    title: "Governing Law",
    body: (
      <p>
        These Legal Terms are governed by and interpreted in accordance with the laws of the Netherlands. If you are a consumer habitually resident in the EU,
        you also keep the protection of the mandatory provisions of the law of your country of residence.
      </p>
    ),
  },
  {
    id: "dispute-resolution",
    title: "Dispute Resolution",
    body: (
      <p>
        You and we agree first to try to settle any dispute informally for at least thirty (30) days. Any dispute not settled that way shall be finally resolved
        by arbitration. The seat of arbitration shall be Utrecht, the Netherlands, and the language of the proceedings shall be English. The governing law of
        this agreement is the substantive law of the Netherlands.
      </p>
    ),
  },
  {
    id: "corrections",
    title: "Corrections",
    body: (
      <p>
        There may be information on the Services that contains typographical errors, inaccuracies or omissions, including descriptions, pricing and
        availability. We reserve the right to correct any errors and to change or update the information at any time, without prior notice.
      </p>
    ),
  },
  {
    id: "disclaimer",
    title: "Disclaimer",
    body: (
      <p>
        The Services are provided on an as-is and as-available basis. You agree that your use of the Services is at your sole risk. To the fullest extent
        permitted by law, we disclaim all warranties, express or implied, including the implied warranties of merchantability, fitness for a particular purpose
        and non-infringement.
      </p>
    ),
  },
  {
    id: "limitations-liability",
    title: "Limitations of Liability",
    body: (
      <p>
        In no event will we be liable to you or any third party for any indirect, consequential, incidental, special or punitive damages, including lost profit,
        lost revenue or loss of data. Notwithstanding anything to the contrary, our liability to you for any cause whatsoever will at all times be limited to
        the amount paid, if any, by you to us during the six (6) month period prior to any cause of action arising.
      </p>
    ),
  },
  {
    id: "indemnification",
    title: "Indemnification",
    body: (
      <p>
        You agree to defend, indemnify and hold us harmless from any loss, damage, liability, claim or demand, including reasonable attorneys' fees, made by any
        third party due to or arising out of your use of the Services, your breach of these Legal Terms, or your violation of the rights of a third party.
      </p>
    ),
  },
  {
    id: "user-data",
    title: "User Data",
    body: (
      <p>
        We keep the data you transmit to the Services for the purpose of managing their performance. Although we store your backups as encrypted files, you are
        solely responsible for all data that you transmit or that relates to any activity you have undertaken using the Services, and you agree that we have no
        liability for any loss or corruption of such data.
      </p>
    ),
  },
  {
    id: "electronic-communications",
    title: "Electronic Communications, Transactions, and Signatures",
    body: (
      <p>
        Using the Services, sending us e-mails and completing online forms constitute electronic communications. You consent to receive electronic
        communications, and you agree that all agreements, notices and other communications we provide to you electronically satisfy any legal requirement that
        such communication be in writing.
      </p>
    ),
  },
  {
    id: "miscellaneous",
    title: "Miscellaneous",
    body: (
      <p>
        These Legal Terms and any policies posted by us on the Services constitute the entire agreement between you and us. Our failure to exercise any right or
        provision shall not operate as a waiver of it. If any provision is found unlawful, void or unenforceable, it is severable and does not affect the
        validity of the remaining provisions. We may assign any or all of our rights and obligations to others at any time.
      </p>
    ),
  },
  {
    id: "contact-us",
    title: "Contact Us",
    body: (
      <p>
        To resolve a complaint regarding the Services or to receive further information about their use, please contact us at{" "}
        <a href={`mailto:${SUPPORT_EMAIL}`}>{SUPPORT_EMAIL}</a>.
      </p>
    ),
  },
];
