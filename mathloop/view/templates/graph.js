
(function(){
 var data=JSON.parse(document.getElementById('graph-data').textContent);
 var byId={};data.nodes.forEach(function(n){byId[n.id]=n;});
 var panel=document.getElementById('panel');
 function row(dl,k,v){if(v===null||v===undefined||v===''||(Array.isArray(v)&&!v.length))return;
  var dt=document.createElement('dt');dt.textContent=k;var dd=document.createElement('dd');
  if(Array.isArray(v)){var ul=document.createElement('ul');ul.className='reasons';
   v.forEach(function(x){var li=document.createElement('li');li.textContent=x;ul.appendChild(li);});dd.appendChild(ul);}
  else dd.textContent=String(v);dl.appendChild(dt);dl.appendChild(dd);}
 function show(id){var n=byId[id];if(!n)return;
  document.querySelectorAll('g.node.sel').forEach(function(g){g.classList.remove('sel');});
  var g=document.querySelector('g.node[data-id="'+CSS.escape(id)+'"]');if(g)g.classList.add('sel');
  panel.textContent='';var h=document.createElement('h2');h.textContent=n.id+': '+n.title;panel.appendChild(h);
  var dl=document.createElement('dl');panel.appendChild(dl);
  row(dl,'status',n.status);row(dl,'kind',n.kind);row(dl,'statement',n.statement);row(dl,'citation',n.citation);
  row(dl,'checker',n.checker);row(dl,'trust level',n.trust);row(dl,'verdict',n.verdict);row(dl,'rank',n.rank);
  row(dl,'reasons',n.reasons);row(dl,'at this state',n.detail);
  if(n.covered!==null&&n.covered!==undefined)row(dl,'family discharged since the root',(100*n.covered).toFixed(2)+' %');
  if(n.bound){var b=n.bound;row(dl,'certified value',b.value===null?'not certified':(b.direction==='minimize'?'≤ ':'≥ ')+b.value);
   row(dl,'exact',b.exact);row(dl,'class maximum',b.class_maximum===null?'none stated':b.class_maximum+' ('+b.class_maximum_basis+')');
   row(dl,'why the class maximum holds',b.class_maximum_why);
   row(dl,'goal',b.goal);row(dl,'Lean',b.lean_checked?'a real Lean kernel accepted this commit\'s certificate':'not Lean-checked');}
  row(dl,'depends on',n.depends_on.join(', '));
  if(history.replaceState)history.replaceState(null,'','#'+encodeURIComponent(id));}
 document.querySelectorAll('g.node').forEach(function(g){g.addEventListener('click',function(){show(g.getAttribute('data-id'));});
  g.addEventListener('keydown',function(e){if(e.key==='Enter'||e.key===' '){e.preventDefault();show(g.getAttribute('data-id'));}});});
 var start=decodeURIComponent((location.hash||'').slice(1));
 if(byId[start])show(start);
})();
