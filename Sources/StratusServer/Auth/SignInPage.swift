import Foundation

/// The HTML of the server's own sign-in flow: the form, and the page that hands the token back.
enum SignInPage {
    /// What the form shows.
    struct Form {
        var apiToken: String
        var container: String
        var email = ""
        var message: String?
        var creating = false
    }

    /// The sign-in / create-account form. Both post back with the API token in a hidden field.
    static func form(_ form: Form) -> String {
        let token = escape(form.apiToken)
        let message = form.message.map { #"<p class="error" role="alert">\#(escape($0))</p>"# } ?? ""
        let (title, action, button, other) =
            form.creating
            ? ("Create an account", "/signup", "Create account", #"Already have an account? <a href="/signin?ckAPIToken=\#(token)">Sign in</a>"#)
            : ("Sign in", "/signin", "Sign in", #"New here? <a href="/signin?ckAPIToken=\#(token)&amp;create=1">Create an account</a>"#)
        let nameFields =
            form.creating
            ? """
                <label>First name <input name="givenName" autocomplete="given-name"></label>
                <label>Last name <input name="familyName" autocomplete="family-name"></label>
                <label class="check"><input type="checkbox" name="discoverable" value="on"> Let people who know my e-mail address find me</label>
            """ : ""
        return page(
            title: title,
            body: """
                <h1>\(title)</h1>
                <p class="container">to use <strong>\(escape(form.container))</strong></p>
                \(message)
                <form method="post" action="\(action)">
                  <input type="hidden" name="ckAPIToken" value="\(token)">
                  <label>E-mail <input name="email" type="email" required autocomplete="username" value="\(escape(form.email))"></label>
                  <label>Password <input name="password" type="password" required autocomplete="\(form.creating ? "new-password" : "current-password")"></label>
                  \(nameFields)
                  <label class="check"><input type="checkbox" name="keepSignedIn" value="on"> Keep me signed in</label>
                  <button type="submit">\(button)</button>
                </form>
                <p>\(other)</p>
                """
        )
    }

    /// The page that posts the token to the window that opened the sign-in page, then closes.
    static func handBack(token: String, origins: [String]) -> String {
        let targets = origins.isEmpty ? ["*"] : origins
        let targetsJSON = (try? JSONEncoder().encode(targets)).map { String(decoding: $0, as: UTF8.self) } ?? #"["*"]"#
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
