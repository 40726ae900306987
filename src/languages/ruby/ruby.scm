; Definitions of Ruby source: classes and modules (qualifying what they hold), methods and singleton
; methods (`def self.x`).

[(class name: [(constant) (scope_resolution)] @name)
 (module name: [(constant) (scope_resolution)] @name)] @definition.class


[(method name: (_) @name)
 (singleton_method name: (_) @name)] @definition.method

(call method: (identifier) @_require arguments: (argument_list (string) @name)
  (#match? @_require "^require(_relative)?$")) @reference.import

; references (the code graph): method calls by name, the superclass
(call method: (identifier) @name) @reference.call
(superclass [(constant) @name (scope_resolution name: (constant) @name)]) @reference.inherits
; a bare identifier standing as a statement is a call of a method without arguments (`flush`)
(body_statement (identifier) @name @reference.call)
