import Foundation

/// The HTML of the server's own sign-in flow: the forms, and the page that hands the token back.
enum SignInPage {
    /// Which form.
    enum Kind: Equatable {
        /// E-mail and password.
        case signIn
        /// E-mail and names: sends a verification link.
        case signUp
        /// Reached from a verification link: choose a password for the verified address.
        case verify(ticket: String)
    }

    /// What a form shows.
    struct Form {
        var apiToken: String
        var container: String
        /// The anti-forgery field (``SignInForgeryGuard``).
        var csrf: String
        var kind = Kind.signIn
        var email = ""
        var message: String?
        /// Whether to offer "create an account".
        var allowsSignUp = true
    }

    /// A sign-in, sign-up or choose-a-password form; each posts back with the API token and the
    /// anti-forgery field in hidden fields.
    static func form(_ form: Form) -> String {
        let token = escape(form.apiToken)
        let message = form.message.map { #"<p class="error" role="alert">\#(escape($0))</p>"# } ?? ""
        let signInLink = #"<a href="/signin?ckAPIToken=\#(token)">Sign in</a>"#
        let createLink = #"New here? <a href="/signin?ckAPIToken=\#(token)&amp;create=1">Create an account</a>"#
        let keep = #"<label class="check"><input type="checkbox" name="keepSignedIn" value="on"> Keep me signed in</label>"#
        let email = #"<label>E-mail <input name="email" type="email" required autocomplete="username" value="\#(escape(form.email))"></label>"#
        let (title, action, button, fields, other): (String, String, String, String, String)
        switch form.kind {
        case .signIn:
            (title, action, button, other) = ("Sign in", "/signin", "Sign in", form.allowsSignUp ? createLink : "")
            fields = email + #"<label>Password <input name="password" type="password" required autocomplete="current-password"></label>"# + keep
        case .signUp:
            (title, action, button, other) = ("Create an account", "/signup", "Send me a link", "Already have an account? " + signInLink)
            fields =
                email + """
                    <label>First name <input name="givenName" autocomplete="given-name" maxlength="100"></label>
                    <label>Last name <input name="familyName" autocomplete="family-name" maxlength="100"></label>
                    <label class="check"><input type="checkbox" name="discoverable" value="on"> Let people who know my e-mail address find me</label>
                    <p class="container">We send a link to this address; follow it to choose your password.</p>
                    """
        case .verify(let ticket):
            (title, action, button, other) = ("Choose a password", "/verify", "Create account", "")
            fields = """
                <input type="hidden" name="ticket" value="\(escape(ticket))">
                <p>for <strong>\(escape(form.email))</strong></p>
                <label>Password <input name="password" type="password" required autocomplete="new-password"></label>
                """ + keep
        }
        return page(
            title: title,
            body: """
                <h1>\(title)</h1>
                <p class="container">to use <strong>\(escape(form.container))</strong></p>
                \(message)
                <form method="post" action="\(action)">
                  <input type="hidden" name="ckAPIToken" value="\(token)">
                  <input type="hidden" name="\(SignInForgeryGuard.fieldName)" value="\(escape(form.csrf))">
                  \(fields)
                  <button type="submit">\(button)</button>
                </form>
                <p>\(other)</p>
                """
        )
    }

    /// The page that posts the token to the window that opened the sign-in page — only to the API
    /// token's allowed origins, never to `*` — then closes.
    ///
    /// `postMessage` with a target origin delivers only if the opener is at that origin, so a page
    /// elsewhere that opened the sign-in window receives nothing. Without allowed origins there is
    /// nobody to hand the token to, and the caller shows ``notConfiguredForBrowsers()`` instead.
    static func handBack(token: String, origins: [String]) -> String {
        precondition(!origins.isEmpty, "SignInPage.handBack needs at least one allowed origin; never post a token to '*'")
        let targetsJSON = (try? JSONEncoder().encode(origins)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
        let tokenJSON = (try? JSONEncoder().encode(token)).map { String(decoding: $0, as: UTF8.self) } ?? #""""#
        return page(
            title: "Signed in",
            body: """
                <h1>Signed in</h1>
                <p>You can close this window.</p>
                <script>
                  (function () {
                    var token = \(tokenJSON);
                    if (window.opener) {
                      \(targetsJSON).forEach(function (origin) {
                        try { window.opener.postMessage({ ckWebAuthToken: token, ckSession: token }, origin); } catch (e) {}
                      });
                      window.close();
                    }
                  })();
                </script>
                """
        )
    }

    /// The page for an API token with neither a sign-in callback nor allowed origins: a browser
    /// sign-in would have nowhere safe to send the token.
    static func notConfiguredForBrowsers() -> String {
        message(
            "Sign-in not available",
            "This app's API token is not configured for browser sign-in: it has neither a sign-in callback URL nor allowed origins. "
                + "The app's developer can create a token with `stratus token create --callback <url>` or `--origins <origin>`."
        )
    }

    /// A page with only a message, for links that cannot work.
    static func message(_ title: String, _ text: String) -> String {
        page(title: title, body: "<h1>\(escape(title))</h1><p>\(escape(text))</p>")
    }

    private static func page(title: String, body: String) -> String {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(escape(title)) · Stratus</title>
        <style>
          body { font: 16px/1.5 system-ui, sans-serif; background: #f4f5f7; color: #1d1d1f; margin: 0; }
          main { max-width: 22rem; margin: 8vh auto; background: #fff; padding: 2rem; border-radius: 12px; box-shadow: 0 1px 4px #0002; }
          h1 { font-size: 1.4rem; margin: 0 0 .25rem; }
          .container { color: #666; margin-top: 0; }
          label { display: block; margin: .75rem 0; }
          label input:not([type=checkbox]) { display: block; width: 100%; box-sizing: border-box; padding: .5rem; font: inherit; margin-top: .25rem; }
          label.check { display: flex; gap: .5rem; align-items: baseline; }
          button { width: 100%; padding: .6rem; font: inherit; background: #0a66d8; color: #fff; border: 0; border-radius: 8px; }
          .error { color: #b00020; }
        </style>
        </head>
        <body><main>
        \(body)
        </main></body>
        </html>
        """
    }

    /// `text` safe inside HTML text and double-quoted attributes.
    static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.count)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }

    /// The fields of an `application/x-www-form-urlencoded` body (or query string).
    static func formFields(_ body: Data) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (text: Substring) in String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "" }
            fields[decode(parts[0])] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return fields
    }
}
